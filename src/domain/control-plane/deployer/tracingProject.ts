// Each deployment has a tracing project of its name (the seed: "a tracing project of the
// same name is created automatically"): the servers a deployer starts export their
// OpenTelemetry spans with service.name = the deployment's name, and, when the deployment's
// secrets turn LangSmith tracing on (LANGSMITH_TRACING / LANGCHAIN_TRACING_V2 with an API
// key), LangChain traces to LangSmith under a project of that name too. Secrets that name
// a service or project themselves win: they are put over this environment.

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value);

/** The environment that names a deployment's tracing project, for the server that runs it. */
export function tracingProjectEnv(deploymentName: string, secrets: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { OTEL_SERVICE_NAME: deploymentName, AGENTPLANE_DEPLOYMENT_NAME: deploymentName };
  const langsmith =
    (truthy(secrets.LANGSMITH_TRACING) || truthy(secrets.LANGCHAIN_TRACING_V2)) && Boolean(secrets.LANGSMITH_API_KEY || secrets.LANGCHAIN_API_KEY);
  if (langsmith) Object.assign(env, { LANGSMITH_PROJECT: deploymentName, LANGCHAIN_PROJECT: deploymentName });
  return env;
}
