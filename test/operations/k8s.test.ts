import { execFileSync } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { parseAllDocuments } from 'yaml'

const ROOT = path.resolve(__dirname, '../..')
const OVERLAYS = ['dev', 'production', 'production-s3']
const WORKLOADS = ['gateway', 'accounts', 'accounts-worker', 'push', 'push-worker', 'streaming']

interface K8sObject {
  apiVersion: string
  kind: string
  metadata: { name: string; labels?: Record<string, string> }
  spec?: any // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The kubernetes-models class for an object, loaded from its group/version folder (e.g. `apps/v1/Deployment`). */
function modelOf(object: K8sObject): new (data: unknown) => { validate(): void } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(`kubernetes-models/${object.apiVersion}/${object.kind}`)[object.kind]
}

const render = (overlay: string): K8sObject[] =>
  parseAllDocuments(
    execFileSync('/usr/bin/kubectl', ['kustomize', path.join(ROOT, 'k8s/overlays', overlay)], {
      encoding: 'utf8',
    }),
  )
    .map((doc) => doc.toJSON() as K8sObject)
    .map(unwrapSecretData)

/**
 * kustomize wraps long base64 Secret values over several lines; Kubernetes (Go's base64) ignores the newlines,
 * the schema's "byte" format does not, so they are joined before validating.
 */
function unwrapSecretData(object: K8sObject): K8sObject {
  const data = (object as { data?: Record<string, string> }).data
  if (object.kind !== 'Secret' || !data) return object
  return {
    ...object,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.replace(/\s/g, '')])),
  } as K8sObject
}

// kubernetes-models does not reject unknown fields: these are the keys our manifests may use, so a misspelt
// one (`readinesProbe`, `minAvailible`) fails here instead of being silently ignored by the cluster.
const KNOWN_KEYS: Record<string, string[]> = {
  container: [
    'name',
    'image',
    'command',
    'args',
    'ports',
    'env',
    'envFrom',
    'securityContext',
    'resources',
    'startupProbe',
    'readinessProbe',
    'livenessProbe',
    'volumeMounts',
  ],
  probe: [
    'httpGet',
    'exec',
    'tcpSocket',
    'periodSeconds',
    'timeoutSeconds',
    'failureThreshold',
    'initialDelaySeconds',
  ],
  PodDisruptionBudget: ['minAvailable', 'maxUnavailable', 'selector'],
  HorizontalPodAutoscaler: ['scaleTargetRef', 'minReplicas', 'maxReplicas', 'metrics'],
}
const unknownKeys = (value: object, kind: string) =>
  Object.keys(value).filter((k) => !KNOWN_KEYS[kind]!.includes(k))

describe.each(OVERLAYS)('k8s overlay %s', (overlay) => {
  const objects = render(overlay)
  const deployments = objects.filter((o) => o.kind === 'Deployment')
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy')

  it('validates every object against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(10)
    for (const object of objects) {
      const Model = modelOf(object)
      expect(() => new Model(object).validate()).not.toThrow()
    }
  })

  it('runs the six processes, each with probes, resources and a hardened security context', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...WORKLOADS].sort())
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true })
      for (const container of pod.containers) {
        expect(unknownKeys(container, 'container')).toEqual([])
        expect(container.readinessProbe.httpGet.path).toBe('/health/ready')
        expect(container.livenessProbe.httpGet.path).toBe('/health/live')
        for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe'])
          if (container[probe]) expect(unknownKeys(container[probe], 'probe')).toEqual([])
        expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) })
        expect(container.resources.limits.memory).toEqual(expect.any(String))
        expect(container.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
        })
        expect(container.image).not.toMatch(/:latest$|^[^:]+$/)
      }
    }
  })

  it('gives every Deployment a NetworkPolicy, and lets only the gateway take traffic from anywhere', () => {
    expect(policies.find((p) => p.metadata.name === 'default-deny')?.spec).toEqual({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
    })
    for (const deployment of deployments) {
      const name = deployment.spec.template.metadata.labels['app.kubernetes.io/name']
      const own = policies.filter((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === name)
      expect(own).toHaveLength(1)
      const openToAll = (own[0]!.spec.ingress ?? []).some((rule: { from?: unknown[] }) => !rule.from)
      expect(openToAll).toBe(name === 'gateway')
    }
    // The service APIs accept the gateway (push and the worker reach accounts only for its key set).
    for (const name of ['push', 'streaming']) {
      const policy = policies.find((p) => p.metadata.name === name)!
      expect(policy.spec.ingress[0].from).toEqual([
        { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } } },
      ])
    }
    // The gateway may reach streaming (WebSocket upgrades and event streams are proxied).
    const gatewayPolicy = policies.find((p) => p.metadata.name === 'gateway')!
    expect(gatewayPolicy.spec.egress).toContainEqual({
      to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'streaming' } } }],
      ports: [{ protocol: 'TCP', port: 3005 }],
    })
  })

  it('lets accounts and its worker reach other servers on the internet (443, 80), never cluster or private ranges', () => {
    /** Whether a NetworkPolicy lets its pods connect to `ip`:`port` over TCP (DNS and in-cluster pod selectors aside). */
    const allows = (policy: K8sObject, ip: string, port: number) =>
      (policy.spec.egress ?? []).some(
        (rule: { to?: { ipBlock?: { cidr: string; except?: string[] } }[]; ports?: { port: number }[] }) => {
          if (rule.ports && !rule.ports.some((p) => p.port === port)) return false
          if (!rule.to) return true
          return rule.to.some(({ ipBlock }) => {
            if (!ipBlock) return false
            const family = net.isIPv6(ip) ? 'ipv6' : 'ipv4'
            const inside = (cidr: string) => {
              const [address, prefix] = cidr.split('/')
              if (net.isIPv6(address!) !== (family === 'ipv6')) return false
              const list = new net.BlockList()
              list.addSubnet(address!, Number(prefix), family)
              return list.check(ip, family)
            }
            return inside(ipBlock.cidr) && !(ipBlock.except ?? []).some(inside)
          })
        },
      )
    for (const name of ['accounts', 'accounts-worker']) {
      const policy = policies.find((p) => p.metadata.name === name)!
      // A peer on the internet, over HTTPS and HTTP, IPv4 and IPv6.
      for (const ip of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])
        for (const port of [443, 80])
          expect([name, ip, port, allows(policy, ip, port)]).toEqual([name, ip, port, true])
      // Pods, services, nodes, cloud metadata, loopback: refused on the web ports.
      for (const ip of [
        '10.0.0.1',
        '172.20.3.4',
        '192.168.1.1',
        '169.254.169.254',
        '100.64.0.1',
        '127.0.0.1',
        'fd00::1',
        'fe80::1',
      ])
        for (const port of [443, 80])
          expect([name, ip, port, allows(policy, ip, port)]).toEqual([name, ip, port, false])
      // Postgres and Redis (in the cluster in dev, managed services in production) stay reachable; other ports do not.
      expect(allows(policy, '10.0.0.5', 5432)).toBe(true)
      expect(allows(policy, '10.0.0.6', 6379)).toBe(true)
      expect(allows(policy, '93.184.216.34', 22)).toBe(false)
    }
  })

  it('has Services, one Ingress to the gateway, HPAs, PDBs and one migration Job per schema', () => {
    const names = (kind: string) =>
      objects
        .filter((o) => o.kind === kind)
        .map((o) => o.metadata.name)
        .sort()
    expect(names('Service')).toEqual(
      expect.arrayContaining(
        ['accounts', 'gateway', 'push', 'streaming'].map((n) => expect.stringContaining(n)),
      ),
    )
    expect(names('Service')).not.toContain('push-worker')
    const ingresses = objects.filter((o) => o.kind === 'Ingress')
    expect(ingresses).toHaveLength(1)
    expect(ingresses[0]!.spec.rules[0].http.paths[0].backend.service.name).toBe('gateway')
    expect(names('HorizontalPodAutoscaler')).toEqual([...WORKLOADS].sort())
    for (const hpa of objects.filter((o) => o.kind === 'HorizontalPodAutoscaler'))
      expect(unknownKeys(hpa.spec, 'HorizontalPodAutoscaler')).toEqual([])
    expect(names('PodDisruptionBudget')).toEqual([...WORKLOADS].sort())
    for (const pdb of objects.filter((o) => o.kind === 'PodDisruptionBudget'))
      expect(unknownKeys(pdb.spec, 'PodDisruptionBudget')).toEqual([])
    const jobs = objects.filter((o) => o.kind === 'Job')
    expect(jobs.map((j) => j.spec.template.spec.containers[0].command.at(-1)).sort()).toEqual([
      'accounts',
      'push',
    ])
    for (const job of jobs) expect(job.spec.template.spec.restartPolicy).toBe('Never')
    expect(objects.filter((o) => o.kind === 'ConfigMap')).toHaveLength(1)
  })

  it('gives every Deployment a CPU HorizontalPodAutoscaler and a PodDisruptionBudget that select its pods', () => {
    // Production keeps two pods of each process and lets one go at a time; dev runs one of each (its overlay).
    const production = overlay !== 'dev'
    /** Whether a label selector (matchLabels only, as ours are) picks pods carrying `labels`. */
    const selects = (selector: { matchLabels?: Record<string, string> }, labels: Record<string, string>) =>
      Object.keys(selector.matchLabels ?? {}).length > 0 &&
      Object.entries(selector.matchLabels!).every(([k, v]) => labels[k] === v)
    const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler')
    const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget')
    for (const deployment of deployments) {
      const name = deployment.metadata.name
      const podLabels = deployment.spec.template.metadata.labels
      expect([name, selects(deployment.spec.selector, podLabels)]).toEqual([name, true])
      for (const container of deployment.spec.template.spec.containers)
        expect([name, container.resources.requests.cpu]).toEqual([name, expect.stringMatching(/^\d+m?$/)])

      const own = hpas.filter((h) => h.spec.scaleTargetRef.name === name)
      expect([name, own.length]).toEqual([name, 1])
      const hpa = own[0]!
      expect(hpa.apiVersion).toBe('autoscaling/v2')
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name })
      expect([name, hpa.spec.minReplicas]).toEqual([name, production ? 2 : 1])
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas)
      expect(hpa.spec.metrics).toContainEqual({
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } },
      })

      // Exactly one budget covers the pods (two would make evictions fail), and it lets one pod go at a time
      // while keeping at least one serving.
      const budgets = pdbs.filter((p) => selects(p.spec.selector, podLabels))
      expect([name, budgets.map((b) => b.metadata.name)]).toEqual([name, [name]])
      const budget = budgets[0]!.spec
      if (production)
        expect([name, budget.minAvailable === 1 || budget.maxUnavailable === 1]).toEqual([name, true])
      else expect([name, budget.minAvailable]).toEqual([name, 0])
      // The budget selects this Deployment's pods only, not another process's.
      for (const other of deployments.filter((d) => d !== deployment))
        expect([
          name,
          other.metadata.name,
          selects(budget.selector, other.spec.template.metadata.labels),
        ]).toEqual([name, other.metadata.name, false])
    }
  })

  it(
    overlay === 'dev'
      ? 'runs Postgres and Redis as StatefulSets with a generated Secret'
      : 'uses external Postgres and Redis and a Secret managed outside git',
    () => {
      const statefulSets = objects.filter((o) => o.kind === 'StatefulSet').map((o) => o.metadata.name)
      const secrets = objects.filter((o) => o.kind === 'Secret')
      if (overlay === 'dev') {
        expect(statefulSets.sort()).toEqual(['postgres', 'redis'])
        expect(secrets).toHaveLength(1)
      } else {
        expect(statefulSets).toEqual([])
        expect(secrets).toEqual([])
      }
    },
  )
})

describe('media storage in production (docs/media.md, "Where files are kept")', () => {
  const pods = (objects: K8sObject[], name: string) =>
    objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec.template.spec

  it('production: the accounts pods and their workers share one ReadWriteMany volume for MEDIA_DIR', () => {
    const objects = render('production')
    const claim = objects.find((o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === 'media')!
    expect(claim.spec.accessModes).toEqual(['ReadWriteMany'])
    for (const name of ['accounts', 'accounts-worker']) {
      const pod = pods(objects, name)
      expect(pod.volumes).toContainEqual({ name: 'media', persistentVolumeClaim: { claimName: 'media' } })
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'media', mountPath: '/data/media' })
    }
  })

  it('production-s3: a bucket, its keys from the Secret roost-s3, and no volume', () => {
    const objects = render('production-s3')
    expect(objects.filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([])
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('roost-config'))!
    expect((config as unknown as { data: Record<string, string> }).data).toMatchObject({
      S3_ENABLED: 'true',
      S3_BUCKET: expect.any(String),
      PUBLIC_URL: 'https://social.example.com',
    })
    for (const name of ['accounts', 'accounts-worker']) {
      const pod = pods(objects, name)
      expect(pod.volumes.map((v: { name: string }) => v.name)).not.toContain('media')
      expect(pod.containers[0].volumeMounts.map((m: { name: string }) => m.name)).not.toContain('media')
      expect(pod.containers[0].envFrom).toContainEqual({ secretRef: { name: 'roost-s3' } })
      expect(pod.containers[0].envFrom).toContainEqual({ secretRef: { name: 'roost-secrets' } })
    }
  })
})
