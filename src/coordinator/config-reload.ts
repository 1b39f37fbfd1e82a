import type { CoordinatorConfig } from '../config/config.js';
import { planReload } from '../config/reload-plan.js';
import type { FactoryRegistry } from '../factories/factory-registry.js';
import type { CoreContext } from './core-context.js';
import type { FactoryRuntime } from './factory-runtime.js';
import type { GameCreations } from './game-creations.js';
import type { ServerRoster } from './servers/server-roster.js';
import type { TicketBook } from './tickets/ticket-book.js';
import type { TicketDesk } from './tickets/ticket-desk.js';

/** A reload's answer: what changed, or every reason it was refused (then nothing changed). */
export type ReloadOutcome = { readonly changes: readonly string[] } | { readonly refused: readonly string[] };

/**
 * A new configuration for a running core (SIGHUP, Admin.ReloadConfig), applied whole or not at
 * all. What may change live is src/config/reload-plan.ts's to say; on top of it, the tickets
 * waiting in a competitive factory must fit its new settings (a narrower playerLimits, a region
 * dropped). Applied: live factories take their template's new version, tickets from now on meet
 * the new settings, and connected servers take on the factories the new templates and values
 * make for their attributes, as if they had said hello again.
 */
export class ConfigReload {
  constructor(
    private readonly ctx: CoreContext,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
    private readonly book: TicketBook,
    private readonly roster: ServerRoster,
    private readonly creations: GameCreations,
    private readonly desk: TicketDesk,
  ) {}

  reload(next: CoordinatorConfig): ReloadOutcome {
    const { problems, changes, waiting } = this.assess(next);
    // The edge logs the outcome with what triggered it.
    if (problems.length > 0) return { refused: problems };
    this.ctx.config = next;
    for (const { identity, state } of this.registry.replaceTemplates(next.templates)) state.reconfigure(identity, waiting.get(identity.name) ?? []);
    this.serveNewFactories();
    return { changes };
  }

  /** Why `next` would be refused here (nothing when it would apply), and what it would change; changes nothing. */
  check(next: CoordinatorConfig): { readonly problems: readonly string[]; readonly changes: readonly string[] } {
    const { problems, changes } = this.assess(next);
    return { problems, changes };
  }

  /** The check, with the waiting tickets by factory it read (a reload that applies reconfigures with them). */
  private assess(next: CoordinatorConfig) {
    const live = this.registry.liveIdentities();
    const plan = planReload(
      this.ctx.config,
      next,
      live.map((identity) => ({ template: identity.template.name, name: identity.name, partition: identity.partition })),
    );
    const problems = plan.ok ? [] : [...plan.problems];
    const waiting = this.book.pooledByFactory();
    // Every reason at once, so one edit of the file can answer them all: waiting tickets are
    // checked against the new settings even when the plan already refuses the reload.
    const templates = new Map(next.templates.map((t) => [t.name, t]));
    for (const identity of live) {
      const template = templates.get(identity.template.name);
      if (template === undefined || template.strategy.kind !== identity.template.strategy.kind) continue;
      const misfit = this.registry.get(identity.name)?.misfit({ ...identity, template }, waiting.get(identity.name) ?? []);
      if (misfit !== undefined) problems.push(`factories[${template.name}]: ${identity.name}: ${misfit}`);
    }
    return { problems, changes: plan.ok ? plan.changes : [], waiting };
  }

  /** Each connected server takes on the factories its hello would give it now. */
  private serveNewFactories(): void {
    for (const server of [...this.roster.all()]) {
      const serving = new Set(server.factories);
      const fresh = this.registry.hostable(server.hello.attributes, server.hello.templates).filter((i) => !serving.has(i.name));
      if (fresh.length === 0) continue;
      const names = fresh.map((i) => i.name);
      this.registry.attach(server.hello.serverId, fresh);
      this.roster.serveMore(server.hello.serverId, names);
      this.creations.serverServes(server.hello.serverId, names);
      this.ctx.out.info({ serverId: server.hello.serverId, factories: names }, 'game server serves new factories');
      for (const name of names) {
        this.desk.admitParked(name);
        this.desk.offerSeats(name);
      }
    }
  }
}
