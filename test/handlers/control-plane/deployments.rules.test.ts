// The rules of create, patch, redeploy and delete: each bad request gets 400/404/409/422
// with a detail naming the problem, and changes nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { create, dockerBody, githubBody, json, waitForRevision } from '../../control-plane/support.ts';

describe('control plane: repo_url transports (issue 83)', () => {
  let server: InProcessApp;
  before(async () => (server = await areaApp('control-plane')));
  after(() => server.close());

  it("refuses a repo_url naming git's remote helpers (fd::, ext::, any <helper>::), in any case; stores nothing", async () => {
    const github = githubBody('rules-transport');
    for (const url of ['fd::17', 'ext::sh -c touch% /tmp/pwned', 'EXT::sh', 'fd::0/x', 'testgit::/tmp/x', 'persistent-https::github.com/a/b']) {
      const reply = await json(
        await server.api('/v2/deployments', { method: 'POST', json: { ...github, source_config: { ...github.source_config, repo_url: url } } }),
        422,
      );
      const issue = reply.detail.find((i: any) => i.loc.join('.') === 'source_config.repo_url');
      assert.match(issue?.msg ?? '', /remote helper/, JSON.stringify(reply));
    }
    assert.deepEqual((await json(await server.api('/v2/deployments'), 200)).resources, []);
    // a path and file:// stay: a project on this machine is the documented quick start
    for (const url of ['/srv/agents/my-agent', 'file:///srv/agents/my-agent', 'git@github.com:acme/agent.git'])
      await json(
        await server.api('/v2/deployments', {
          method: 'POST',
          json: { ...githubBody(`ok-${url.length}`), source_config: { ...github.source_config, repo_url: url } },
        }),
        201,
      );
  });
});

describe('control plane: create rules', () => {
  let server: InProcessApp;
  before(async () => (server = await areaApp('control-plane')));
  after(() => server.close());

  const rejected = async (body: unknown, status: number, pattern: RegExp) => {
    const reply = await json(await server.api('/v2/deployments', { method: 'POST', json: body }), status);
    if (status === 422)
      assert.ok(
        reply.detail.some((i: any) => pattern.test(i.loc.join('.'))),
        JSON.stringify(reply),
      );
    else assert.match(reply.detail, pattern);
  };

  it('checks the source-specific rules', async () => {
    const github = githubBody('rules-github');
    await rejected({ ...github, source_config: { deployment_type: 'dev' } }, 400, /source_config\.repo_url is required when source is github/);
    await rejected({ ...github, source_revision_config: { graph_config_path: 'langgraph.json' } }, 400, /repo_ref is required/);
    await rejected({ ...github, source_revision_config: { repo_ref: 'main' } }, 400, /graph_config_path .*is required/);
    await rejected({ ...github, source_revision_config: { repo_ref: 'refs/tags/v1.0.0', graph_config_path: 'a.json' } }, 400, /build_on_push must be false/);
    await rejected(
      { ...github, source_config: { ...github.source_config, custom_url: 'https://x.example' } },
      400,
      /custom_url is only allowed when source is external_docker/,
    );
    await rejected({ ...github, source_revision_config: { ...github.source_revision_config, langgraph_config_path: 'other.json' } }, 400, /differ/);
    await rejected(
      {
        ...github,
        secrets: [
          { name: 'A', value: '1' },
          { name: 'A', value: '2' },
        ],
      },
      400,
      /duplicate secret name A/,
    );
    await rejected(
      { ...github, source_config: { ...github.source_config, resource_spec: { min_scale: 3, max_scale: 1 } } },
      400,
      /min_scale must be less than or equal to max_scale/,
    );
    await rejected({ ...dockerBody('rules-docker'), source_revision_config: {} }, 400, /image_uri is required when source is external_docker/);
    await rejected(
      { ...dockerBody('rules-docker'), source_config: { repo_url: 'https://github.com/a/b' } },
      400,
      /repo_url is only allowed when source is github/,
    );
    await rejected(
      { name: 'internal', source: 'internal_docker', source_config: { custom_url: 'https://x.example' }, source_revision_config: { image_uri: 'img:1' } },
      400,
      /custom_url is only allowed/,
    );
    await rejected({ ...github, name: 'bad name' }, 422, /body\.name/);
    await rejected({ ...github, source_config: { ...github.source_config, deployment_type: 'serverless' } }, 422, /deployment_type/);
    await rejected({ ...github, unknown: 1 }, 422, /body\.unknown/);
    const list = await json(await server.api('/v2/deployments'), 200);
    assert.equal(list.resources.length, 0, 'rejected requests create nothing');
  });

  it('accepts upstream client bodies: docs example, official CI script, CLI minimal create', async () => {
    const docs = await create(server.api, {
      name: 'docs_example',
      source: 'github',
      source_config: {
        integration_id: '5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f',
        repo_url: 'https://github.com/acme/agent',
        deployment_type: 'dev',
        build_on_push: false,
        custom_url: null,
        resource_spec: null,
      },
      source_revision_config: { repo_ref: 'main', langgraph_config_path: 'langgraph.json', image_uri: null },
      secrets: [
        { name: 'OPENAI_API_KEY', value: 'a' },
        { name: 'ANTHROPIC_API_KEY', value: 'b' },
        { name: 'TAVILY_API_KEY', value: 'c' },
      ],
    });
    assert.equal(docs.source_revision_config.graph_config_path, 'langgraph.json');
    assert.equal(docs.source_config.custom_url, server.url);
    assert.ok(!('langgraph_config_path' in docs.source_revision_config));
    const nulls = {
      integration_id: null,
      repo_url: null,
      deployment_type: null,
      build_on_push: null,
      custom_url: null,
      resource_spec: null,
      listener_id: null,
      listener_config: null,
      install_command: null,
      build_command: null,
    };
    const ci = await create(server.api, {
      name: 'ci-script',
      source: 'external_docker',
      source_config: nulls,
      source_revision_config: { repo_ref: null, langgraph_config_path: null, image_uri: 'img:1' },
      secrets: [],
    });
    assert.equal(ci.source_config.deployment_type, 'dev');
    const cli = await create(server.api, {
      name: 'cli-minimal',
      source: 'internal_docker',
      source_config: { deployment_type: 'prod', build_on_push: false },
      source_revision_config: { image_uri: 'img:2' },
    });
    assert.deepEqual(cli.secrets, []);
  });

  it('keeps names unique per tenant (409)', async () => {
    await create(server.api, dockerBody('unique-name'));
    const reply = await json(await server.api('/v2/deployments', { method: 'POST', json: dockerBody('unique-name') }), 409);
    assert.equal(reply.detail, 'A deployment named unique-name already exists.');
    const concurrent = await Promise.all([1, 2, 3].map(() => server.api('/v2/deployments', { method: 'POST', json: dockerBody('raced-name') })));
    assert.deepEqual(concurrent.map((r) => r.status).sort(), [201, 409, 409]);
  });
});

describe('control plane: patch, redeploy and delete rules', () => {
  let server: InProcessApp;
  let deployment: any;
  before(async () => {
    server = await areaApp('control-plane');
    deployment = await create(server.api, githubBody('patch-rules'));
    await waitForRevision(server.api, deployment.id, deployment.latest_revision_id);
  });
  after(() => server.close());

  const patch = (body: unknown, id = deployment.id) => server.api(`/v2/deployments/${id}`, { method: 'PATCH', json: body });

  it('refuses to change immutable fields, naming them; the same value is a no-op', async () => {
    for (const [body, field] of [
      [{ name: 'renamed' }, 'name'],
      [{ source: 'external_docker' }, 'source'],
      [{ source_config: { repo_url: 'https://github.com/acme/other' } }, 'source_config.repo_url'],
      [{ source_config: { deployment_type: 'prod' } }, 'source_config.deployment_type'],
      [{ source_config: { integration_id: '5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f' } }, 'source_config.integration_id'],
      [{ source_config: { listener_id: '5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f' } }, 'source_config.listener_id'],
      [{ source_config: { listener_config: { k8s_namespace: 'x' } } }, 'source_config.listener_config'],
    ] as const) {
      const reply = await json(await patch(body), 400);
      assert.equal(reply.detail, `${field} cannot be changed after creation.`);
    }
    const same = await json(
      await patch({ name: 'patch-rules', source: 'github', source_config: { repo_url: 'https://github.com/acme/my-agent', custom_url: server.url } }),
      200,
    );
    assert.equal(same.latest_revision_id, deployment.latest_revision_id);
  });

  it('applies in-place fields without a revision and revision fields with one', async () => {
    const inPlace = await json(await patch({ source_config: { install_command: 'npm ci', build_on_push: false } }), 200);
    assert.equal(inPlace.latest_revision_id, deployment.latest_revision_id);
    assert.equal(inPlace.source_config.install_command, 'npm ci');
    assert.equal(inPlace.source_config.build_on_push, false);
    const withSpec = await json(await patch({ source_config: { resource_spec: { min_scale: 1, max_scale: 2, cpu: 1, memory_mb: 1024 } } }), 200);
    assert.notEqual(withSpec.latest_revision_id, deployment.latest_revision_id);
    assert.equal(withSpec.source_config.resource_spec.max_scale, 2);
    await waitForRevision(server.api, deployment.id, withSpec.latest_revision_id);
  });

  it('masks secrets and keeps the stored value when the mask is sent back', async () => {
    const current = await json(await server.api(`/v2/deployments/${deployment.id}`), 200);
    assert.deepEqual(current.secrets, [{ name: 'OPENAI_API_KEY', value: '********' }]);
    const kept = await json(await patch({ secrets: [...current.secrets, { name: 'NEW_KEY', value: 'new-secret-value' }] }), 200);
    assert.deepEqual(kept.secrets, [
      { name: 'OPENAI_API_KEY', value: '********' },
      { name: 'NEW_KEY', value: '********' },
    ]);
    assert.ok(!JSON.stringify(kept).includes('new-secret-value'));
    const unknownMask = await json(await patch({ secrets: [{ name: 'NEVER_SET', value: '********' }] }), 400);
    assert.match(unknownMask.detail, /NEVER_SET/);
    const stored = await server.store.collection<any>('cp-deployments').get(deployment.id);
    assert.deepEqual(stored.secrets, [
      { name: 'OPENAI_API_KEY', value: 'sk-proj-4f9c2e7a1b' },
      { name: 'NEW_KEY', value: 'new-secret-value' },
    ]);
    await waitForRevision(server.api, deployment.id, kept.latest_revision_id);
  });

  it('checks source rules on patch', async () => {
    assert.match((await json(await patch({ source_config: { custom_url: 'https://elsewhere.example' } }), 400)).detail, /custom_url is only allowed/);
    assert.match((await json(await patch({ source_revision_config: { image_uri: 'img:1' } }), 400)).detail, /image_uri is only allowed/);
    assert.match(
      (
        await json(
          await patch({ source_revision_config: { repo_ref: 'refs/tags/v2', graph_config_path: 'x.json' }, source_config: { build_on_push: true } }),
          400,
        )
      ).detail,
      /build_on_push must be false/,
    );
    assert.match(
      (
        await json(
          await patch({
            secrets: [
              { name: 'X', value: '1' },
              { name: 'X', value: '2' },
            ],
          }),
          400,
        )
      ).detail,
      /duplicate/,
    );
  });

  it('answers 404 for unknown deployments and revisions, 400 for revisions that cannot be redeployed', async () => {
    const missing = 'd2e1c0b9-4a5f-4e6d-8c7b-9a0f1e2d3c4b';
    assert.deepEqual(await json(await patch({}, missing), 404), { detail: `Deployment ID ${missing} not found.` });
    assert.deepEqual(await json(await server.api(`/v2/deployments/${missing}/revisions`), 404), { detail: `Deployment ID ${missing} not found.` });
    assert.deepEqual(await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${missing}`), 404), {
      detail: `Revision ID ${missing} not found.`,
    });
    assert.deepEqual(await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${missing}/redeploy`, { method: 'POST' }), 404), {
      detail: `Revision ID ${missing} not found.`,
    });
    const other = await create(server.api, dockerBody('other-deployment', 'img:fail'));
    // a revision of another deployment is not a revision of this one
    await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${other.latest_revision_id}`), 404);
    assert.equal((await waitForRevision(server.api, other.id, other.latest_revision_id)).status, 'DEPLOY_FAILED');
    const failed = await json(await server.api(`/v2/deployments/${other.id}/revisions/${other.latest_revision_id}/redeploy`, { method: 'POST' }), 400);
    assert.match(failed.detail, /has status DEPLOY_FAILED; only a revision that reached DEPLOYED can be redeployed/);
    await json(await server.api('/v2/deployments/not-a-uuid'), 422);
  });
});
