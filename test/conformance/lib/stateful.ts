import type { SuiteContext } from './suite.ts';
export function defineStatefulProperties(_ctx: () => SuiteContext): void {}
