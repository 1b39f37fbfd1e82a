export { ContractMonitor, type ContractOptions } from './contract-monitor.js';
export type * from './observation.js';
export type { Rule, Violation } from './violation.js';
