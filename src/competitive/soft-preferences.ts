import type { BatchEntry } from './batch-entry.js';
import type { SoftPreference } from './competitive-config.js';

/**
 * Soft filters (Destiny thesis, "Sorting": "when dealing with multiple soft filters we simply add
 * the weights"): each preference adds weight x (fraction of the game's players whose value of its
 * attribute differs from the most common one) to a candidate game's cost. It orders candidates
 * and never makes a game unviable. Cost is O(preferences x members).
 */
export class SoftPreferences {
  constructor(private readonly preferences: readonly SoftPreference[]) {}

  get empty(): boolean {
    return this.preferences.length === 0;
  }

  cost(members: readonly BatchEntry[]): number {
    let total = 0;
    for (const { attribute, weight } of this.preferences) {
      const counts = new Map<string, number>();
      let stated = 0;
      let most = 0;
      for (const member of members) {
        const value = member.ticket.softAttributes?.get(attribute);
        if (value === undefined) continue;
        stated += member.size;
        const n = (counts.get(value) ?? 0) + member.size;
        counts.set(value, n);
        if (n > most) most = n;
      }
      if (stated > 0) total += (weight * (stated - most)) / stated;
    }
    return total;
  }
}

export const NO_SOFT_PREFERENCES = new SoftPreferences([]);
