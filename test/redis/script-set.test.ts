import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScriptSources } from '../../src/redis/script-set.js';

const directory = new URL('../../src/redis/scripts/', import.meta.url);

describe('Lua scripts (BullMQ convention)', () => {
  const sources = loadScriptSources();
  const files = readdirSync(directory).filter((f) => f.endsWith('.lua'));

  it('every script file is named <what-it-does>-<number of KEYS>.lua and is loaded', () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(file).toMatch(/^[a-z]+(-[a-z]+)*-\d+\.lua$/);
    expect(sources.map((s) => s.name).sort()).toHaveLength(files.length);
  });

  it('every script opens with a header listing each KEYS and ARGV it reads, and its output', () => {
    for (const file of files) {
      const text = readFileSync(new URL(file, directory), 'utf8');
      const header = text.slice(0, text.indexOf(']]'));
      expect(header.startsWith('--[['), file).toBe(true);
      expect(header, file).toMatch(/Output:/);
      const keys = Number(/-(\d+)\.lua$/.exec(file)![1]);
      for (let k = 1; k <= keys; k++) expect(header, `${file} KEYS[${k}]`).toContain(`KEYS[${k}]`);
      const body = text.slice(text.indexOf(']]'));
      for (const [, n] of body.matchAll(/KEYS\[(\d+)\]/g)) expect(Number(n), `${file} reads KEYS[${n}]`).toBeLessThanOrEqual(keys);
      for (const [, n] of body.matchAll(/ARGV\[(\d+)\]/g)) expect(header, `${file} ARGV[${n}]`).toMatch(new RegExp(`ARGV\\[${n}(\\]|\\.\\.)`));
    }
  });

  it('includes are pasted, once: every fenced relay write checks the owner with the one shared function', () => {
    for (const name of ['gfRelayAck', 'gfRelayAssign', 'gfRelayRecord', 'gfRelaySend']) {
      const script = sources.find((s) => s.name === name)!;
      expect(script.lua, name).not.toMatch(/@include/);
      expect(script.lua.match(/local function ownerHolds/g), name).toHaveLength(1);
    }
  });
});
