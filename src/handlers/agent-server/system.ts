// GET /ok — liveness.
import type { AgentServerAreaHandlers } from './area.ts';

export const health: AgentServerAreaHandlers['health'] = async () => ({ status: 200, body: { ok: true } });
