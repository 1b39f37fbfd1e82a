import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScriptSources } from '../../src/redis/script-set.js';

const directory = new URL('../../src/redis/scripts/', import.meta.url);

describe('Lua scripts (BullMQ convention)', () => {
  const sources = loadScriptSources();
  const files = readdirSync(directory).filter((f) => f.endsWith('.lua'));

  it('every script file is named <what-it-does>-<number of KEYS, or n for a batch>.lua and is loaded', () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(file).toMatch(/^[a-z]+(-[a-z]+)*-(\d+|n)\.lua$/);
    expect(sources.map((s) => s.name).sort()).toHaveLength(files.length);
  });

  it('every script opens with a header listing each KEYS and ARGV it reads, and its output', () => {
    for (const file of files) {
      const text = readFileSync(new URL(file, directory), 'utf8');
      const header = text.slice(0, text.indexOf(']]'));
      expect(header.startsWith('--[['), file).toBe(true);
      expect(header, file).toMatch(/Output:/);
      const counted = /-(\d+)\.lua$/.exec(file);
      // A batch (`-n`) names its keys by position or as a range (KEYS[4..]).
      const keys = counted ? Number(counted[1]) : Infinity;
      if (counted) for (let k = 1; k <= keys; k++) expect(header, `${file} KEYS[${k}]`).toContain(`KEYS[${k}]`);
      else expect(header, file).toMatch(/KEYS\[\d+\.\.\]/);
      const body = text.slice(text.indexOf(']]'));
      for (const [, n] of body.matchAll(/KEYS\[(\d+)\]/g)) {
        expect(Number(n), `${file} reads KEYS[${n}]`).toBeLessThanOrEqual(keys);
        if (!counted) expect(header, `${file} KEYS[${n}]`).toMatch(new RegExp(`KEYS\\[${n}(\\]|\\.\\.)`));
      }
      for (const [, n] of body.matchAll(/ARGV\[(\d+)\]/g)) expect(header, `${file} ARGV[${n}]`).toMatch(new RegExp(`ARGV\\[${n}(\\]|\\.\\.)`));
    }
  });

  it('includes are pasted, once: the fenced relay commit checks the owner with the one shared function', () => {
    for (const name of ['gfRelayCommit']) {
      const script = sources.find((s) => s.name === name)!;
      expect(script.lua, name).not.toMatch(/@include/);
      expect(script.lua.match(/local function ownerHolds/g), name).toHaveLength(1);
    }
  });
});
