// A resource_spec that uses every group of the seed (Redis aside: agentplane refuses it), for
// the renderer's unit tests and the kube-local end-to-end test. `image` runs the pod's
// init container and sidecar: the init container leaves a file in an emptyDir the main
// container serves, the sidecar keeps a heartbeat there. References name what the deployment
// owns, so they need its id: without one (a create) the spec names none.
import type { ResourceSpec } from '../../generated/control-plane/types.gen.ts';

export function fullResourceSpec(image: string, deploymentId?: string): ResourceSpec {
  return {
    min_scale: 1,
    max_scale: 3,
    cpu: 0.25,
    cpu_limit: 0.5,
    memory_mb: 64,
    memory_limit_mb: 128,
    queue_min_scale: 1,
    queue_max_scale: 4,
    queue_cpu: 0.2,
    queue_cpu_limit: 0.4,
    queue_memory_mb: 48,
    queue_memory_limit_mb: 96,
    orchestrator_cpu: 1,
    orchestrator_cpu_limit: 2,
    orchestrator_memory_mb: 512,
    orchestrator_memory_limit_mb: 1024,
    orchestrator_min_scale: 1,
    orchestrator_max_scale: 2,
    executor_cpu: 1,
    executor_cpu_limit: 2,
    executor_memory_mb: 512,
    executor_memory_limit_mb: 1024,
    db_cpu: 0.5,
    db_cpu_limit: 1,
    db_memory_mb: 256,
    db_memory_limit_mb: 512,
    db_storage_gi: 7,
    db_max_connections: 150,
    labels: { team: 'agents', tier: 'test' },
    annotations: { 'example.com/owner': 'kube-test' },
    ...(deploymentId ? { image_pull_secrets: [{ name: `agentplane-${deploymentId}-registry` }] } : {}),
    volumes: [
      { name: 'shared', emptyDir: {} },
      { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
    ],
    volume_mounts: [
      { name: 'shared', mountPath: '/shared' },
      { name: 'scratch', mountPath: '/scratch', readOnly: false, subPath: null, mountPropagation: null, subPathExpr: null },
    ],
    init_containers: [
      {
        name: 'greeter',
        image,
        imagePullPolicy: 'Never',
        command: ['/usr/bin/node'],
        args: ['/app/init.js'],
        workingDir: '/app',
        env: [
          { name: 'OUT_FILE', value: '/shared/greeting.txt' },
          { name: 'GREETING', value: 'hello from the init container' },
        ],
        envFrom: [],
        resources: { limits: { cpu: '200m', memory: '64Mi' }, requests: { cpu: '100m', memory: '32Mi' } },
        volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
        securityContext: { allowPrivilegeEscalation: false },
      },
    ],
    sidecars: [
      {
        name: 'heartbeat',
        image,
        imagePullPolicy: 'Never',
        command: ['/usr/bin/node', '/app/sidecar.js'],
        env: [{ name: 'BEAT_FILE', value: '/shared/beat.txt' }],
        resources: { limits: { cpu: '100m', memory: '48Mi' } },
        volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
      },
    ],
  };
}
