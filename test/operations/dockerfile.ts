/**
 * Just enough of the Dockerfile and .dockerignore formats to check ours without a Docker engine
 * (https://docs.docker.com/reference/dockerfile/, "Format" and ".dockerignore file").
 */

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

export interface Stage {
  readonly base: string;
  readonly name: string | undefined;
  readonly instructions: readonly Instruction[];
}

/** The stages of a Dockerfile, each with its instructions (comments dropped, `\` continuations joined). */
export function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  const stages: { base: string; name: string | undefined; instructions: Instruction[] }[] = [];
  for (const line of lines) {
    const match = /^(\S+)\s*(.*)$/.exec(line)!;
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!;
    if (keyword === 'FROM') {
      const from = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ base: from[1]!, name: from[2], instructions: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1]!.instructions.push({ keyword, args });
    }
  }
  return stages;
}

/** A RUN's shell command split on `&&`, each part trimmed. */
export function commandsOf(run: string): string[] {
  return run.split('&&').map((part) => part.trim());
}

/** `["a", "b"]` (exec form) as its words. */
export function execForm(args: string): string[] {
  return JSON.parse(args) as string[];
}

/**
 * Whether .dockerignore's patterns leave `path` out of the build context: a pattern, anchored at
 * the context's root (`*` within one path element, `**` across any), excludes what it matches and
 * everything under it; a `!pattern` brings a match back; the last matching pattern decides.
 */
export function ignoredBy(patterns: readonly string[]): (path: string) => boolean {
  const rules = patterns
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const glob = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
      const source = glob
        .split('/')
        .map((element) => (element === '**' ? '.*' : element.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
        .join('/')
        .replace(/\.\*\//g, '(?:.*/)?');
      return { negated, regex: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (path) => {
    let ignored = false;
    for (const rule of rules) if (rule.regex.test(path)) ignored = !rule.negated;
    return ignored;
  };
}
