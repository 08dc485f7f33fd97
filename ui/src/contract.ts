// The API's types as the dashboard reads them: generated from the spec (generated/), the same
// types the server's handlers answer with, so a spec change shows up here at compile time.
export type { AuthProvider, AuthTokenSummary, Deployment, DeploymentList, Revision, RevisionList, RevisionLogs } from '../../generated/control-plane/types.gen';
export type { AgentCard, AgentCardV1, AssistantRunMetrics, TraceSpan } from '../../generated/agent-server/types.gen';
