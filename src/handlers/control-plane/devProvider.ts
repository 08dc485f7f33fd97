// The development OAuth provider's operations (AGENTPLANE_DEV_OAUTH): its consent page, the
// user's answer, its token endpoint. Off, the server routes none of them (404, server.ts).
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { DevPage, DevProvider } from '../../domain/ports/devProvider.ts';

type DevProviderHandlers = Pick<ControlPlaneHandlers<RequestContext>, 'devAuthorize' | 'devConsent' | 'devToken'>;

// the pages carry nothing they were not given: no scripts, no framing, no caching, no referrer
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};
const NOT_CACHED = { 'Cache-Control': 'no-store' };

const shown = (page: DevPage) =>
  page.shown === 'consent'
    ? { status: 200 as const, headers: PAGE_HEADERS, text: page.html }
    : { status: 400 as const, headers: PAGE_HEADERS, text: page.html };

const OFF = { status: 404 as const, body: { detail: 'Not Found' } };

/** `provider`: the development provider, null where this server does not offer it. */
export function devProviderHandlers(provider: DevProvider | null): DevProviderHandlers {
  // a redirect goes back to this server only: as its public URL names it, else as the page was reached
  const origins = (ctx: RequestContext) => [new URL(ctx.baseUrl).origin];
  return {
    devAuthorize: async ({ query }, ctx) => (provider ? shown(provider.authorizePage(origins(ctx), query)) : OFF),
    devConsent: async ({ body }, ctx) => {
      if (!provider) return OFF;
      const answer = provider.consent(origins(ctx), body);
      // its only page: why the request is not one (a consent page comes from devAuthorize)
      return 'redirect' in answer
        ? { status: 303, headers: { Location: answer.redirect, ...NOT_CACHED } }
        : { status: 400, headers: PAGE_HEADERS, text: answer.html };
    },
    devToken: async ({ body }) => {
      if (!provider) return OFF;
      const answer = provider.token(body);
      if ('tokens' in answer) return { status: 200, headers: NOT_CACHED, body: answer.tokens };
      return { status: answer.error === 'invalid_client' ? 401 : 400, headers: NOT_CACHED, body: answer };
    },
  };
}
