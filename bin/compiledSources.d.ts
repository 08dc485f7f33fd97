// Types of compiledSources.js (plain JavaScript: the CLI's entry point loads it before tsx).
export declare const COMPILED_SOURCES: string[];
export declare const BUILD_STAMP: string;
export declare function compiledSourceFiles(root: string): Record<string, { size: number; mtimeMs: number }>;
export declare function buildStamp(root: string, startedAtMs: number): { started_at_ms: number; sizes: Record<string, number> };
export declare function compiledIsCurrent(root: string, distDir?: string): boolean;
