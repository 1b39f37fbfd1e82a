import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ComplexityCase } from './case.js';

export const casesDirectory = join(fileURLToPath(new URL('.', import.meta.url)), 'cases');

export interface DiscoveredCase {
  readonly file: string;
  readonly complexityCase: ComplexityCase<unknown>;
}

/** Every `cases/*.case.ts` default-exports an array of cases; files are read in name order. */
export function caseFiles(directory: string = casesDirectory): string[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.case.ts'))
    .sort();
}

export async function loadCases(directory: string = casesDirectory): Promise<DiscoveredCase[]> {
  const found: DiscoveredCase[] = [];
  for (const file of caseFiles(directory)) {
    const module = (await import(pathToFileURL(join(directory, file)).href)) as { default?: unknown };
    if (!Array.isArray(module.default)) throw new Error(`${file} must default-export an array of complexity cases`);
    for (const complexityCase of module.default as ComplexityCase<unknown>[]) found.push({ file, complexityCase });
  }
  return found;
}
