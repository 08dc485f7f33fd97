// A pipeline over the agent-server document alone, with one API key for one tenant, and a fetch
// into it in process: what a pipeline test needs besides its own handlers and options.
import { apiDocuments } from '../../src/runtime/api.ts';
import { KeyRing } from '../../src/runtime/security/auth.ts';
import { createLogger } from '../../src/runtime/logging/logger.ts';
import { createPipeline, type PipelineOptions } from '../../src/runtime/transports/http/pipeline.ts';
import { ResponseValidators } from '../../src/runtime/transports/http/responseValidators.ts';
import { inProcessHandler } from '../../src/runtime/transports/inProcess.ts';

/** The pipeline's fetch for `key` (of `tenant-a`), with `options` over the defaults. */
export function agentServerPipeline(key: string, options: Pick<PipelineOptions, 'handlers'> & Partial<PipelineOptions>) {
  const { handle } = createPipeline({
    documents: apiDocuments.filter((doc) => doc.key === 'agent-server'),
    keyRing: new KeyRing([{ key, tenants: ['tenant-a'] }]),
    log: createLogger('silent'),
    maxBodyBytes: 1 << 20,
    publicUrl: null,
    requireAuthEverywhere: true,
    // not loaded: the replies wait for a check, as a server's first replies do (responseValidators.ts)
    responseValidators: new ResponseValidators(),
    strictReplies: false,
    ...options,
  });
  return inProcessHandler((req, res) => void handle(req, res));
}
