// Types of youngGeneration.js (plain JavaScript: the CLI's entry point runs it before the server's modules load).
export declare const START_SEMI_SPACE_BYTES: number;
export declare function youngGenerationGiven(nodeOptions: readonly string[]): boolean;
export declare function newSpaceBytes(): number;
export declare function holdYoungGeneration(): void;
export declare function releaseYoungGeneration(): void;
