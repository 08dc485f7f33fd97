// The thread protocol's commands checked against their contract (spec/protocol.openrpc.json,
// through the validators generated from it): the envelope `{id, method, params}`, then each
// method's params. Shared because both transports read commands — the domain's command
// handler (POST …/commands) and the runtime's WebSocket, which answers subscriptions itself —
// and neither may import the other. A failure is worded as upstream's server words it, where
// it has words for it (its clients and tests match them); any other names the param and what
// the schema wanted.
import { Command as commandValidator } from '../../generated/protocol/components.validators.gen.js';
import * as paramValidators from '../../generated/protocol/params.validators.gen.js';
import type { Command } from '../../generated/protocol/types.gen.ts';

type Validator = typeof commandValidator;
type SchemaError = NonNullable<Validator['errors']>[number];

/** The methods the contract names, by their validator's name (`run.start` → `run_start`). */
const VALIDATORS: Readonly<Record<string, Validator>> = paramValidators;

/** Upstream's words for a param that does not fit, by method and param (`/n` an item of it, `!` too few items). */
const UPSTREAM_WORDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'run.start': { assistant_id: 'run.start requires an assistant_id.' },
  'input.respond': {
    'responses!': 'input.respond requires at least one response.',
    'responses/n': 'input.respond responses entries require an interrupt_id.',
    responses: 'input.respond requires an interrupt_id.',
    interrupt_id: 'input.respond requires an interrupt_id.',
  },
  'subscription.subscribe': {
    channels: 'subscription.subscribe requires a non-empty channels array.',
    'channels!': 'subscription.subscribe requires a non-empty channels array.',
    'channels/n': 'subscription.subscribe received an unsupported channel.',
  },
  'subscription.unsubscribe': { subscription_id: 'subscription.unsubscribe requires a subscription_id.' },
};

/** Whether a message is a command; `problem` says why not (its `id` when it has a usable one). */
export function readCommand(message: unknown): { command: Command } | { problem: string; id: number | null } {
  if (commandValidator(message)) return { command: message as Command };
  const raw = typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : {};
  const framed = Number.isInteger(raw.id) && (raw.id as number) >= 0 && typeof raw.method === 'string';
  // upstream's words for a message without an id and a method; params that are not an object are ours
  return framed
    ? { problem: 'Protocol command params must be an object.', id: raw.id as number }
    : { problem: 'Protocol commands must include an integer id and string method.', id: null };
}

/** What is wrong with a command's params for its method (null: nothing, or a method the contract does not name). */
export function paramsProblem(method: string, params: unknown): string | null {
  const validate = VALIDATORS[method.replace(/[^A-Za-z0-9_]/g, '_')];
  if (!validate || validate(params ?? {})) return null;
  const errors = validate.errors ?? [];
  const words = UPSTREAM_WORDS[method] ?? {};
  for (const error of errors) {
    const worded = words[wordKey(error)];
    if (worded) return worded;
  }
  const first = errors[0];
  return first
    ? `${method}: params${first.instancePath || ''} ${first.message ?? 'is invalid'}${first.params?.missingProperty ? ` (${first.params.missingProperty})` : ''}.`
    : `${method}: invalid params.`;
}

/** `param`, `param/n` (an item of it) or `param!` (too few items), for the table above. */
function wordKey(error: SchemaError): string {
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  if (missing && !error.instancePath) return missing;
  const [param, item] = error.instancePath.split('/').slice(1);
  if (item !== undefined) return `${param}/n`;
  return error.keyword === 'minItems' ? `${param}!` : (param ?? '');
}
