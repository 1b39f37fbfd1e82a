import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');

/** README.md and every page under docs/: what a reader copies from. */
export const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

export interface Block {
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly text: string;
}

/** Every fenced block of a page, with its language (empty when the fence names none). */
export function blocks(page: string): Block[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const found: Block[] = [];
  let open: { line: number; lang: string; body: string[] } | undefined;
  lines.forEach((text, i) => {
    if (!text.startsWith('```')) {
      open?.body.push(text);
      return;
    }
    if (open) {
      found.push({ page, line: open.line, lang: open.lang, text: open.body.join('\n') });
      open = undefined;
    } else {
      open = { line: i + 1, lang: text.slice(3).trim(), body: [] };
    }
  });
  return found;
}

export interface CommandLine {
  readonly where: string;
  /** The words of the command, its comment and a trailing `&` taken off. */
  readonly words: string[];
  /** Written to run in the background with `&`. */
  readonly background: boolean;
}

/**
 * Every `npx gamefactory ...` and `npm ...` command in the shell blocks of the pages; a line that
 * chains commands with `&&` gives each. No command in the docs quotes a space, so words split on
 * whitespace.
 */
export function commandLines(): CommandLine[] {
  const commands: CommandLine[] = [];
  for (const page of PAGES) {
    for (const block of blocks(page).filter((b) => b.lang === 'sh')) {
      block.text.split('\n').forEach((raw, i) => {
        const line = raw.replace(/\s+#.*$/, '').trim();
        for (const part of line.split('&&').map((p) => p.trim())) {
          if (!/^(npx gamefactory|npm) /.test(part) && part !== 'npm test') continue;
          const background = part.endsWith('&');
          const words = (background ? part.slice(0, -1) : part).trim().split(/\s+/);
          commands.push({ where: `${page}:${block.line + 1 + i}`, words, background });
        }
      });
    }
  }
  return commands;
}
