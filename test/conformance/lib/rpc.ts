import type { SuiteContext } from './suite.ts';
export function defineRpcProperties(_ctx: () => SuiteContext): void {}
