/** Stream entry ids in order ("<ms>-<seq>", or a plain number). */
export function compareEntryIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
