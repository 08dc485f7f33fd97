// The `agent` graph's generative UI (langgraph.json / agentplane.json `ui`): agentplane bundles
// this module at start and serves it at /ui/agent, for clients that render the graph's UI
// messages with `LoadExternalComponent` (@langchain/langgraph-sdk/react-ui). React comes from
// the page that loads the bundle, as upstream.
import './agent.css';

function WeatherCard(props: { city?: string; forecast?: string }) {
  return (
    <div className="weather-card">
      <strong>{props.city ?? 'Somewhere'}</strong>
      <span>{props.forecast ?? 'no forecast yet'}</span>
    </div>
  );
}

export default { weather: WeatherCard };
