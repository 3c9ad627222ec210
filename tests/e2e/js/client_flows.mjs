// Flows of the official JavaScript Kubernetes client (@kubernetes/client-node, installed by
// scripts/setup.sh into tests/e2e/js/node_modules) against a cluster, run by
// tests/e2e/test_vcluster_clients.py as `node client_flows.mjs KUBECONFIG`. It loads the
// kubeconfig exactly as written, prints "ok FLOW" per flow and exits non-zero on the first
// failure (the reason on stderr).
import * as k8s from '@kubernetes/client-node';

const NS = 'jsclient';
const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const core = kc.makeApiClient(k8s.CoreV1Api);
const coord = kc.makeApiClient(k8s.CoordinationV1Api);

function assert(cond, what) {
  if (!cond) throw new Error(`assertion failed: ${what}`);
}
async function expectCode(code, promise) {
  try {
    await promise;
  } catch (e) {
    assert(e.code === code, `expected HTTP ${code}, got ${e.code}: ${e.body}`);
    return e;
  }
  throw new Error(`expected HTTP ${code}, the call succeeded`);
}
async function waitFor(what, fn, timeoutMs = 60000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const got = await fn();
    if (got) return got;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}
const pod = (name, labels = { app: 'js' }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '10m' } } }] },
});
const patchAs = (type) => k8s.setHeaderOptions('Content-Type', type);

async function main() {
  // create / get / list
  await core.createNamespace({ body: { metadata: { name: NS } } });
  const created = await core.createNamespacedPod({ namespace: NS, body: pod('alpha') });
  assert(created.metadata.uid, 'a uid on the created pod');
  const got = await core.readNamespacedPod({ name: 'alpha', namespace: NS });
  assert(got.metadata.uid === created.metadata.uid, 'get returns the created pod');
  const list = await core.listNamespacedPod({ namespace: NS });
  assert(list.items.map((p) => p.metadata.name).join() === 'alpha', 'list has alpha');
  await expectCode(409, core.createNamespacedPod({ namespace: NS, body: pod('alpha') }));
  console.log('ok create/get/list');

  // informer: makeInformer lists, then watches; it sees adds and deletes
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${NS}/pods`, () =>
    core.listNamespacedPod({ namespace: NS }));
  const events = [];
  informer.on('add', (p) => events.push(`add ${p.metadata.name}`));
  informer.on('update', (p) => events.push(`update ${p.metadata.name}`));
  informer.on('delete', (p) => events.push(`delete ${p.metadata.name}`));
  let informerError = null;
  informer.on('error', (e) => { informerError = e; });
  await informer.start();
  await waitFor('the informer to list alpha', () => events.includes('add alpha'));
  await core.createNamespacedPod({ namespace: NS, body: pod('watched') });
  await waitFor('the informer to see watched added', () => events.includes('add watched'));
  await core.deleteNamespacedPod({ name: 'watched', namespace: NS, gracePeriodSeconds: 0 });
  await waitFor('the informer to see watched deleted', () => events.includes('delete watched'));
  assert(informer.get('alpha', NS) && !informer.get('watched', NS), 'the informer cache holds alpha only');
  assert(informerError === null, `informer error ${informerError}`);
  console.log('ok informer');

  // a plain watch (k8s.Watch) from the list's resourceVersion sees a pod ADDED then DELETED
  const rv = (await core.listNamespacedPod({ namespace: NS })).metadata.resourceVersion;
  const seen = [];
  let watchDone = null;
  const controller = await new k8s.Watch(kc).watch(`/api/v1/namespaces/${NS}/pods`,
    { resourceVersion: rv, allowWatchBookmarks: true },
    (type, obj) => seen.push(`${type} ${obj.metadata.name}`),
    (err) => { watchDone = err || 'done'; });
  await core.createNamespacedPod({ namespace: NS, body: pod('streamed') });
  await waitFor('ADDED streamed', () => seen.includes('ADDED streamed'));
  await core.deleteNamespacedPod({ name: 'streamed', namespace: NS, gracePeriodSeconds: 0 });
  await waitFor('DELETED streamed', () => seen.includes('DELETED streamed'));
  controller.abort();
  assert(watchDone === null || watchDone === 'done' || `${watchDone}`.includes('abort'),
    `the watch ended with ${watchDone}`);
  console.log('ok watch');

  // dry-run create: answered, not stored
  const dry = await core.createNamespacedPod({ namespace: NS, body: pod('dry'), dryRun: 'All' });
  assert(dry.metadata.name === 'dry', 'dry run answers the object');
  await expectCode(404, core.readNamespacedPod({ name: 'dry', namespace: NS }));
  console.log('ok dry-run create');

  // patches of the three types
  await core.patchNamespacedPod({ name: 'alpha', namespace: NS,
    body: [{ op: 'add', path: '/metadata/labels/json', value: 'yes' }] },
    patchAs(k8s.PatchStrategy.JsonPatch));
  await core.patchNamespacedPod({ name: 'alpha', namespace: NS,
    body: { metadata: { labels: { merge: 'yes', json: null } } } },
    patchAs(k8s.PatchStrategy.MergePatch));
  await core.patchNamespacedPod({ name: 'alpha', namespace: NS,
    body: { metadata: { labels: { smp: 'yes' } } } },
    patchAs(k8s.PatchStrategy.StrategicMergePatch));
  const labels = (await core.readNamespacedPod({ name: 'alpha', namespace: NS })).metadata.labels;
  assert(JSON.stringify(labels) === JSON.stringify({ app: 'js', merge: 'yes', smp: 'yes' }),
    `labels after the patches: ${JSON.stringify(labels)}`);
  console.log('ok patch json/merge/strategic');

  // server-side apply: create, a second manager's conflict (409), force takes the field
  const ssa = patchAs(k8s.PatchStrategy.ServerSideApply);
  const cm = (data) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: NS }, data });
  await core.patchNamespacedConfigMap({ name: 'applied', namespace: NS, body: cm({ owner: 'js-a', size: '1' }),
    fieldManager: 'js-a' }, ssa);
  const conflict = await expectCode(409, core.patchNamespacedConfigMap({ name: 'applied', namespace: NS,
    body: cm({ size: '2' }), fieldManager: 'js-b' }, ssa));
  assert(`${conflict.body}`.includes('.data.size'), `the conflict names the field: ${conflict.body}`);
  await core.patchNamespacedConfigMap({ name: 'applied', namespace: NS, body: cm({ size: '2' }),
    fieldManager: 'js-b', force: true }, ssa);
  const applied = await core.readNamespacedConfigMap({ name: 'applied', namespace: NS });
  assert(JSON.stringify(applied.data) === JSON.stringify({ owner: 'js-a', size: '2' }),
    `after the forced apply: ${JSON.stringify(applied.data)}`);
  console.log('ok server-side apply');

  // pagination with limit and continue
  for (let i = 0; i < 5; i++) {
    await core.createNamespacedPod({ namespace: NS, body: pod(`page-${i}`, { app: 'paged' }) });
  }
  let names = [];
  let token;
  let pages = 0;
  do {
    const page = await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=paged', limit: 2,
      _continue: token });
    names = names.concat(page.items.map((p) => p.metadata.name));
    token = page.metadata._continue;
    pages++;
  } while (token);
  assert(names.sort().join() === 'page-0,page-1,page-2,page-3,page-4' && pages === 3,
    `pages ${pages}: ${names}`);
  console.log('ok pagination');

  // leader election on a Lease (client-node 1.x has no elector): create, renew, stale update 409
  const lease = { metadata: { name: 'js-leader' },
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } };
  const held = await coord.createNamespacedLease({ namespace: NS, body: lease });
  await expectCode(409, coord.createNamespacedLease({ namespace: NS, body: lease }));
  held.spec.renewTime = new Date();
  const renewed = await coord.replaceNamespacedLease({ name: 'js-leader', namespace: NS, body: held });
  assert(renewed.metadata.resourceVersion !== held.metadata.resourceVersion, 'renew bumps the version');
  held.spec.holderIdentity = 'b';
  await expectCode(409, coord.replaceNamespacedLease({ name: 'js-leader', namespace: NS, body: held }));
  const now = await coord.readNamespacedLease({ name: 'js-leader', namespace: NS });
  assert(now.spec.holderIdentity === 'a', 'the stale writer did not take the lease');
  console.log('ok lease');

  // delete
  await core.deleteNamespacedPod({ name: 'alpha', namespace: NS, gracePeriodSeconds: 0 });
  await waitFor('the informer to see alpha deleted', () => events.includes('delete alpha'));
  await informer.stop();
  console.log('ok delete');
}

main().then(() => process.exit(0), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
