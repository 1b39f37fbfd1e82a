#!/usr/bin/env node
// The `gamefactory` command: the signals held first (early-signals.ts), then the commands loaded.
import { holdSignalsWhileLoading } from './early-signals.js';

holdSignalsWhileLoading();
await import('./main.js');
