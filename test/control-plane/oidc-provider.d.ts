// oidc-provider ships no types; the tests use its constructor, request callback and access-token model only.
declare module 'oidc-provider' {
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    AccessToken: { find(token: string): Promise<{ destroy(): Promise<void> } | undefined> };
    callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
  }
}
