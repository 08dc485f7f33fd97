// An assistant's A2A agent card as a client gets it: fetched from the well-known card path with
// the A2A-Version the reader picks (the server answers each version its own card), shown as the
// versions and bindings it serves (the card's supportedInterfaces), a readable summary and the
// raw JSON.
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ErrorNotice, Field, Raw, useLoad } from '../components';
import type { AgentCard as CardV03, AgentCardV1 } from '../contract';

/** The versions a card is served in, newest first (the order clients prefer). */
const CARD_VERSIONS = ['1.0', '0.3'] as const;
type CardVersion = (typeof CARD_VERSIONS)[number];

type Card = AgentCardV1 | CardV03;
type Interface = AgentCardV1['supportedInterfaces'][number];

export const agentCardPath = (assistantId: string) => `/.well-known/agent-card.json?assistant_id=${encodeURIComponent(assistantId)}`;

export function AgentCard({ id }: { id: string }) {
  const [version, setVersion] = useState<CardVersion>('1.0');
  const path = agentCardPath(id);
  const card = useLoad(async () => ({ version, card: await call<Card>('GET', path, undefined, { 'A2A-Version': version }) }), [id, version]);
  // the previous version's card stays in data while the next one loads: shown only once it is the one asked for
  const c = card.data?.version === version ? card.data.card : undefined;
  return (
    <div class="agent-card">
      <div class="card-versions" role="group" aria-label="Card for A2A version">
        {CARD_VERSIONS.map((v) => (
          <button key={v} type="button" aria-pressed={v === version} onClick={() => setVersion(v)}>
            A2A {v}
          </button>
        ))}
      </div>
      <p class="muted">
        <code>GET {path}</code> with <code>A2A-Version: {version}</code>
      </p>
      {card.error ? <ErrorNotice error={card.error} /> : !c ? <p class="muted">Loading…</p> : <CardView card={c} />}
    </div>
  );
}

function CardView({ card }: { card: Card }) {
  const legacy = 'protocolVersion' in card ? card : undefined;
  const capabilities = card.capabilities as { streaming?: boolean; pushNotifications?: boolean; extendedAgentCard?: boolean };
  return (
    <>
      <Interfaces list={card.supportedInterfaces ?? []} />
      <dl class="fields">
        <Field label="Name">{card.name}</Field>
        <Field label="Description">{card.description}</Field>
        {legacy && (
          <>
            <Field label="Protocol">{legacy.protocolVersion}</Field>
            <Field label="Endpoint">
              <code>{legacy.url}</code> {legacy.preferredTransport}
            </Field>
          </>
        )}
        <Field label="Agent version">{card.version}</Field>
        <Field label="Streaming">{capabilities.streaming ? 'yes' : 'no'}</Field>
        <Field label="Push notifications">{capabilities.pushNotifications ? 'yes' : 'no'}</Field>
        <Field label="Input">{card.defaultInputModes.join(', ')}</Field>
        <Field label="Output">{card.defaultOutputModes.join(', ')}</Field>
        <Field label="Skills">{card.skills.map((s) => s.name).join(', ')}</Field>
        <Field label="Signed">{signer(card)}</Field>
      </dl>
      <Raw value={card} label="Card JSON" />
    </>
  );
}

/** The versions and bindings the card lists, in its order of preference. */
function Interfaces({ list }: { list: Interface[] }) {
  if (list.length === 0) return <p class="muted">The card lists no interfaces.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>A2A versions and bindings served, in order of preference</caption>
        <thead>
          <tr>
            <th scope="col">Binding</th>
            <th scope="col">A2A version</th>
            <th scope="col">URL</th>
            <th scope="col">Tenant</th>
          </tr>
        </thead>
        <tbody>
          {list.map((i) => (
            <tr key={`${i.protocolBinding} ${i.protocolVersion} ${i.url}`}>
              <td>{i.protocolBinding}</td>
              <td>{i.protocolVersion}</td>
              <td>
                <code>{i.url}</code>
              </td>
              <td>{i.tenant ? <code>{i.tenant}</code> : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Whether the card is signed, and by which key (the `kid` of the first signature's protected header). */
function signer(card: Card): string {
  const signatures = (card as { signatures?: { protected: string }[] }).signatures ?? [];
  if (signatures.length === 0) return 'no';
  try {
    const header = JSON.parse(atob(signatures[0].protected.replace(/-/g, '+').replace(/_/g, '/'))) as { kid?: string; alg?: string };
    return `yes (${[header.alg, header.kid && `key ${header.kid}`].filter(Boolean).join(', ')})`;
  } catch {
    return 'yes';
  }
}
