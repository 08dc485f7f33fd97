// The part of madge's JavaScript API (https://github.com/pahen/madge#api) the layer test uses;
// madge ships no types of its own.
declare module 'madge' {
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    excludeRegExp?: RegExp[];
  }
  interface MadgeResult {
    /** Each module (relative to baseDir) with the modules it imports. */
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
