export { proposeGames } from './propose-games.js';
export { startMatchFunction, type MatchFunctionOptions, type RunningMatchFunction } from './server.js';
