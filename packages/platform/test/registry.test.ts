import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { issuePullToken, mediaTypes } from '@hindsight/platform';
import { buildStrategyImage, type CreatedVersion, pushToVersion, strategyDir } from './support/images.ts';
import { imageLayout, indexLayout, layoutBlobs, layoutIndex, skopeo } from './support/oci-layout.ts';
import { storageBackends, tempDir } from './support/storage-backends.ts';
import { type Account, type TestPlatform, withTestPlatform } from './support/test-platform.ts';

/**
 * The built-in registry against real clients: skopeo (the containers/image library docker's tooling
 * shares) pushes images built from local folders and pulls them back byte for byte; raw HTTP requests
 * check the distribution spec's headers, status codes and error bodies where a client hides them.
 */
const sha256 = (bytes: Buffer | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const basic = (secret: string) => `Basic ${Buffer.from(`anyone:${secret}`).toString('base64')}`;

interface RegistryResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  json: () => { errors: { code: string; message: string; detail?: unknown }[] };
}

async function registry(
  t: TestPlatform,
  method: string,
  path: string,
  options: { secret?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<RegistryResponse> {
  const response = await fetch(new URL(path, t.platform.url), {
    method,
    headers: { ...(options.secret && { authorization: basic(options.secret) }), ...options.headers },
    ...(options.body !== undefined && { body: options.body }),
  });
  const body = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    headers: response.headers,
    body,
    json: () => JSON.parse(body.toString()),
  };
}

function assertRegistryError(response: RegistryResponse, status: number, code: string, label = code) {
  assert.equal(response.status, status, `${label}: ${response.body.toString().slice(0, 300)}`);
  assert.equal(response.headers.get('docker-distribution-api-version'), 'registry/2.0');
  if (response.body.length === 0) return; // a HEAD answer has no body
  const body = response.json();
  assert.equal(body.errors[0]?.code, code, label);
  assert.equal(typeof body.errors[0]?.message, 'string');
}

async function newVersion(t: TestPlatform, owner: Account, strategyId?: string): Promise<CreatedVersion> {
  const strategy =
    strategyId ??
    (await t.api.post('/v1/strategies', { key: owner.key, body: { name: 'Pushed' } })).body.data.strategyId;
  const created = await t.api.post(`/v1/strategies/${strategy}/versions`, { key: owner.key, body: {} });
  assert.equal(created.status, 201);
  return created.body;
}

const versionRecord = async (t: TestPlatform, owner: Account, v: CreatedVersion) =>
  (await t.api.get(`/v1/strategies/${v.data.strategyId}/versions/${v.data.versionId}`, { key: owner.key }))
    .body.data;

const push = (source: string, v: CreatedVersion, secret: string, ...flags: string[]) =>
  skopeo([
    'copy',
    ...flags,
    source,
    `docker://${v.repositoryUrl}:latest`,
    '--dest-tls-verify=false',
    '--dest-creds',
    `x:${secret}`,
  ]);
const pull = (v: CreatedVersion, secret: string, destination: string, ...flags: string[]) =>
  skopeo([
    'copy',
    ...flags,
    `docker://${v.repositoryUrl}:latest`,
    destination,
    '--src-tls-verify=false',
    '--src-creds',
    `x:${secret}`,
  ]);

const strategyFiles = {
  'main.py': 'import os\nprint("hello from", os.getcwd())\n',
  'lib/signals.py': 'def sma(values, n):\n    return sum(values[-n:]) / n\n',
  'README.md': '# a strategy\n',
};

for (const backend of storageBackends()) {
  describe(`image registry (${backend.name})`, () => {
    const t = withTestPlatform(backend);

    it('answers the version check with the token challenge, and any valid credential with 200', async () => {
      const owner = await t.get().account('registry');
      const v = await newVersion(t.get(), owner);
      const anonymous = await registry(t.get(), 'GET', '/v2/');
      assertRegistryError(anonymous, 401, 'UNAUTHORIZED');
      const challenge = anonymous.headers.get('www-authenticate') ?? '';
      assert.match(
        challenge,
        /^Bearer realm="http:\/\/127\.0\.0\.1:\d+\/v2\/token",service="hindsight-registry"$/,
      );
      const wrong = await registry(t.get(), 'GET', '/v2/', { secret: 'not-a-credential' });
      assertRegistryError(wrong, 401, 'UNAUTHORIZED');
      assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      for (const secret of [v.accessToken, owner.key, owner.session]) {
        const ok = await registry(t.get(), 'GET', '/v2/', { secret });
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('docker-distribution-api-version'), 'registry/2.0');
      }
      const bearer = await registry(t.get(), 'GET', '/v2', {
        headers: { authorization: `Bearer ${v.accessToken}` },
      });
      assert.equal(bearer.status, 200);
      const scoped = await registry(t.get(), 'GET', `/v2/v/${v.data.versionId}/manifests/latest`);
      assert.match(
        scoped.headers.get('www-authenticate') ?? '',
        new RegExp(`scope="repository:v/${v.data.versionId}:pull"`),
        'the challenge names the scope the request needs',
      );
    });

    it('issues tokens no wider than the credential (Docker token flow)', async () => {
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const other = await newVersion(t.get(), owner);
      const token = async (secret: string | undefined, ...scopes: string[]) => {
        const query = scopes.map((s) => `scope=${encodeURIComponent(s)}`).join('&');
        const response = await registry(t.get(), 'GET', `/v2/token?service=hindsight-registry&${query}`, {
          ...(secret && { secret }),
        });
        if (response.status !== 200) return { status: response.status, access: undefined };
        const body = JSON.parse(response.body.toString());
        assert.equal(body.token, body.access_token);
        assert.ok(body.expires_in > 0 && body.expires_in <= 15 * 60);
        const claims = JSON.parse(Buffer.from(body.token.split('.')[1], 'base64url').toString());
        return { status: 200, access: claims.access, token: body.token as string };
      };
      const mine = `repository:v/${v.data.versionId}:pull,push`;
      const theirs = `repository:v/${other.data.versionId}:pull,push`;
      assert.deepEqual((await token(v.accessToken, mine, theirs)).access, [
        { type: 'repository', name: `v/${v.data.versionId}`, actions: ['pull', 'push'] },
      ]);
      assert.deepEqual((await token(owner.key, mine)).access, [
        { type: 'repository', name: `v/${v.data.versionId}`, actions: ['pull'] },
      ]);
      const stranger = await t.get().account('stranger');
      assert.deepEqual((await token(stranger.key, mine)).access, []);
      assert.equal((await token(undefined, mine)).status, 401);
      assert.equal((await token('wrong', mine)).status, 401);

      // A token from the endpoint works as a bearer, within its scope only.
      const pullOnly = (await token(owner.key, mine)).token as string;
      const read = await registry(t.get(), 'GET', `/v2/v/${v.data.versionId}/tags/list`, {
        headers: { authorization: `Bearer ${pullOnly}` },
      });
      assert.equal(read.status, 200);
      assert.deepEqual(JSON.parse(read.body.toString()), { name: `v/${v.data.versionId}`, tags: [] });
      const write = await registry(t.get(), 'POST', `/v2/v/${v.data.versionId}/blobs/uploads/`, {
        headers: { authorization: `Bearer ${pullOnly}` },
      });
      assertRegistryError(write, 403, 'DENIED');
    });

    it('takes an image pushed by skopeo from a local folder and gives it back byte for byte', async () => {
      const { platform } = t.get();
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const layout = await imageLayout({ dir: strategyDir(strategyFiles), cmd: ['python3', 'main.py'] });
      const pushed = await push(`oci:${layout.dir}:latest`, v, v.accessToken);
      assert.equal(pushed.code, 0, pushed.stderr);

      const record = await versionRecord(t.get(), owner, v);
      assert.equal(record.imageStatus, 'ready');
      assert.equal(record.imageDigest, layout.digest, 'the pushed manifest became the image');

      const out = tempDir('pulled');
      const pulled = await pull(v, owner.key, `oci:${out}:latest`);
      assert.equal(pulled.code, 0, pulled.stderr);
      assert.deepEqual(layoutBlobs(out), layoutBlobs(layout.dir), 'every blob comes back identical');
      assert.equal(layoutIndex(out).manifests[0]?.digest, layout.digest);

      const raw = await skopeo([
        'inspect',
        '--raw',
        '--tls-verify=false',
        '--creds',
        `x:${owner.key}`,
        `docker://${v.repositoryUrl}:latest`,
      ]);
      assert.equal(raw.code, 0, raw.stderr);
      assert.equal(sha256(raw.stdout), layout.digest);
      const inspected = await skopeo([
        'inspect',
        '--config',
        '--tls-verify=false',
        '--creds',
        `x:${v.accessToken}`,
        `docker://${v.repositoryUrl}:latest`,
      ]);
      const config = JSON.parse(inspected.stdout);
      assert.deepEqual(config.config.Cmd, ['python3', 'main.py']);
      assert.equal(config.config.WorkingDir, '/app');
      const tags = await skopeo([
        'list-tags',
        '--tls-verify=false',
        '--creds',
        `x:${owner.key}`,
        `docker://${v.repositoryUrl}`,
      ]);
      assert.deepEqual(JSON.parse(tags.stdout).Tags, ['latest']);

      // The internal pull credential (the workers' hook) pulls too, and nothing else.
      const internal = await issuePullToken(platform.ctx.signingSecret, v.data.versionId);
      const byWorker = await pull(v, internal.token, `dir:${tempDir('worker')}`);
      assert.equal(byWorker.code, 0, byWorker.stderr);
      const workerPush = await registry(t.get(), 'POST', `/v2/v/${v.data.versionId}/blobs/uploads/`, {
        secret: internal.token,
      });
      assertRegistryError(workerPush, 403, 'DENIED');
    });

    it('serves manifests by tag and by digest with their media type and digest headers', async () => {
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const layout = await imageLayout({ dir: strategyDir(strategyFiles), cmd: ['python3', 'main.py'] });
      assert.equal((await push(`oci:${layout.dir}:latest`, v, v.accessToken)).code, 0);
      const manifest = readFileSync(join(layout.dir, 'blobs', 'sha256', layout.digest.slice(7)));
      const base = `/v2/v/${v.data.versionId}`;
      for (const reference of ['latest', layout.digest]) {
        const got = await registry(t.get(), 'GET', `${base}/manifests/${reference}`, { secret: owner.key });
        assert.equal(got.status, 200);
        assert.deepEqual(got.body, manifest, 'exactly the bytes pushed');
        assert.equal(got.headers.get('content-type'), mediaTypes.ociManifest);
        assert.equal(got.headers.get('docker-content-digest'), layout.digest);
        const head = await registry(t.get(), 'HEAD', `${base}/manifests/${reference}`, { secret: owner.key });
        assert.equal(head.status, 200);
        assert.equal(head.headers.get('content-length'), String(manifest.length));
        assert.equal(head.headers.get('docker-content-digest'), layout.digest);
        assert.equal(head.body.length, 0);
      }
      const [image] = layout.images;
      const blob = await registry(t.get(), 'GET', `${base}/blobs/${image?.layer.digest}`, {
        secret: owner.key,
      });
      assert.equal(blob.status, 200);
      assert.deepEqual(blob.body, readFileSync(image?.layer.path as string));
      assert.equal(blob.headers.get('docker-content-digest'), image?.layer.digest);
      const headBlob = await registry(t.get(), 'HEAD', `${base}/blobs/${image?.config.digest}`, {
        secret: owner.key,
      });
      assert.equal(headBlob.status, 200);
      assert.equal(headBlob.headers.get('content-length'), String(image?.config.size));

      assertRegistryError(
        await registry(t.get(), 'GET', `${base}/manifests/v9`, { secret: owner.key }),
        404,
        'MANIFEST_UNKNOWN',
      );
      assertRegistryError(
        await registry(t.get(), 'GET', `${base}/manifests/${sha256('nothing')}`, { secret: owner.key }),
        404,
        'MANIFEST_UNKNOWN',
      );
      const unknownHead = await registry(t.get(), 'HEAD', `${base}/manifests/v9`, { secret: owner.key });
      assert.equal(unknownHead.status, 404);
      assertRegistryError(
        await registry(t.get(), 'GET', `${base}/blobs/${sha256('nothing')}`, { secret: owner.key }),
        404,
        'BLOB_UNKNOWN',
      );
      assertRegistryError(
        await registry(t.get(), 'GET', `${base}/blobs/sha256:abc`, { secret: owner.key }),
        400,
        'DIGEST_INVALID',
      );
      assertRegistryError(
        await registry(t.get(), 'DELETE', `${base}/manifests/latest`, { secret: v.accessToken }),
        405,
        'UNSUPPORTED',
      );
      assertRegistryError(
        await registry(t.get(), 'DELETE', `${base}/blobs/${image?.layer.digest}`, { secret: v.accessToken }),
        405,
        'UNSUPPORTED',
      );
    });

    it('takes Docker v2 schema 2 manifests (skopeo --format v2s2)', async () => {
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const layout = await imageLayout({ dir: strategyDir(strategyFiles), cmd: ['python3', 'main.py'] });
      const pushed = await push(`oci:${layout.dir}:latest`, v, v.accessToken, '--format', 'v2s2');
      assert.equal(pushed.code, 0, pushed.stderr);
      const got = await registry(t.get(), 'GET', `/v2/v/${v.data.versionId}/manifests/latest`, {
        secret: owner.key,
      });
      assert.equal(got.headers.get('content-type'), mediaTypes.dockerManifest);
      const record = await versionRecord(t.get(), owner, v);
      assert.equal(record.imageDigest, sha256(got.body));
      const out = tempDir('pulled-v2');
      assert.equal((await pull(v, owner.key, `dir:${out}`)).code, 0);
      assert.deepEqual(readFileSync(join(out, 'manifest.json')), got.body);
    });

    it('takes a multi-architecture OCI index and Docker manifest list (skopeo --all): platform manifests by digest, the index as the image', async () => {
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const layout = await indexLayout({ dir: strategyDir(strategyFiles), cmd: ['python3', 'main.py'] }, [
        'amd64',
        'arm64',
      ]);
      const pushed = await push(`oci:${layout.dir}:latest`, v, v.accessToken, '--all');
      assert.equal(pushed.code, 0, pushed.stderr);
      const record = await versionRecord(t.get(), owner, v);
      assert.equal(record.imageStatus, 'ready');
      assert.equal(record.imageDigest, layout.digest, 'the index is the image');
      const out = tempDir('pulled-index');
      const pulled = await pull(v, owner.key, `oci:${out}:latest`, '--all');
      assert.equal(pulled.code, 0, pulled.stderr);
      assert.deepEqual(layoutBlobs(out), layoutBlobs(layout.dir));
      const got = await registry(t.get(), 'GET', `/v2/v/${v.data.versionId}/manifests/latest`, {
        secret: owner.key,
      });
      assert.equal(got.headers.get('content-type'), mediaTypes.ociIndex);

      // The same index converted by skopeo to a Docker manifest list of Docker v2 manifests.
      const docker = await newVersion(t.get(), owner);
      const converted = await push(
        `oci:${layout.dir}:latest`,
        docker,
        docker.accessToken,
        '--all',
        '--format',
        'v2s2',
      );
      assert.equal(converted.code, 0, converted.stderr);
      const list = await registry(t.get(), 'GET', `/v2/v/${docker.data.versionId}/manifests/latest`, {
        secret: owner.key,
      });
      assert.equal(list.headers.get('content-type'), mediaTypes.dockerList);
      assert.equal((await versionRecord(t.get(), owner, docker)).imageDigest, sha256(list.body));
      const platforms = JSON.parse(list.body.toString()).manifests as { digest: string; mediaType: string }[];
      for (const entry of platforms) {
        assert.equal(entry.mediaType, mediaTypes.dockerManifest);
        const child = await registry(
          t.get(),
          'GET',
          `/v2/v/${docker.data.versionId}/manifests/${entry.digest}`,
          {
            secret: owner.key,
          },
        );
        assert.equal(child.headers.get('content-type'), mediaTypes.dockerManifest);
        assert.equal(sha256(child.body), entry.digest);
      }
      assert.equal((await pull(docker, owner.key, `dir:${tempDir('pulled-list')}`, '--all')).code, 0);
    });

    it('drops a chunk whose client goes away mid-body: the upload keeps only whole chunks', async () => {
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const started = await registry(t.get(), 'POST', `/v2/v/${v.data.versionId}/blobs/uploads/`, {
        secret: v.accessToken,
      });
      const location = started.headers.get('location') ?? '';
      const whole = randomBytes(4000);
      const first = await registry(t.get(), 'PATCH', location, {
        secret: v.accessToken,
        headers: { 'content-range': '0-1999' },
        body: whole.subarray(0, 2000),
      });
      assert.equal(first.headers.get('range'), '0-1999');

      // A raw request announcing 2000 bytes that sends 500 and closes: the server must cut them off again.
      const { port } = new URL(t.get().platform.url);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            [
              `PATCH ${location} HTTP/1.1`,
              `Host: 127.0.0.1:${port}`,
              `Authorization: ${basic(v.accessToken)}`,
              'Content-Type: application/octet-stream',
              'Content-Range: 2000-3999',
              'Content-Length: 2000',
              '',
              '',
            ].join('\r\n'),
          );
          socket.write(whole.subarray(2000, 2500), () => socket.destroy());
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      let range = '';
      for (let i = 0; i < 50 && range !== '0-1999'; i++) {
        // The server notices the broken request asynchronously; poll its upload status.
        const status = await registry(t.get(), 'GET', location, { secret: v.accessToken });
        range = status.headers.get('range') ?? '';
        if (range !== '0-1999') await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(range, '0-1999', 'the partial chunk left nothing behind');
      const resumed = await registry(t.get(), 'PUT', `${location}?digest=${sha256(whole)}`, {
        secret: v.accessToken,
        headers: { 'content-range': '2000-3999' },
        body: whole.subarray(2000),
      });
      assert.equal(resumed.status, 201, 'the client resumes where the upload ends');
      const head = await registry(t.get(), 'HEAD', '/v2/', { secret: v.accessToken });
      assert.equal(head.status, 200, 'HEAD /v2/ works as a version check too');
    });

    it('runs a chunked upload with Range, Location and Docker-Upload-UUID, refusing out-of-order chunks', async () => {
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const base = `/v2/v/${v.data.versionId}`;
      const bytes = randomBytes(300_000);
      const digest = sha256(bytes);
      const started = await registry(t.get(), 'POST', `${base}/blobs/uploads/`, { secret: v.accessToken });
      assert.equal(started.status, 202);
      const location = started.headers.get('location') ?? '';
      const uuid = started.headers.get('docker-upload-uuid') ?? '';
      assert.equal(location, `${base}/blobs/uploads/${uuid}`);
      assert.equal(started.headers.get('range'), '0-0');

      const chunk = (start: number, end: number, range = `${start}-${end}`) =>
        registry(t.get(), 'PATCH', location, {
          secret: v.accessToken,
          headers: { 'content-type': 'application/octet-stream', 'content-range': range },
          body: bytes.subarray(start, end + 1),
        });
      const first = await chunk(0, 99_999);
      assert.equal(first.status, 202);
      assert.equal(first.headers.get('range'), '0-99999');
      assert.equal(first.headers.get('location'), location);
      assert.equal(first.headers.get('docker-upload-uuid'), uuid);

      const gap = await chunk(150_000, 199_999);
      assertRegistryError(gap, 416, 'BLOB_UPLOAD_INVALID', 'a chunk after a gap');
      assert.equal(gap.headers.get('range'), '0-99999', 'the 416 says where to resume');
      assert.equal(gap.headers.get('location'), location);
      const overlap = await chunk(50_000, 99_999);
      assertRegistryError(overlap, 416, 'BLOB_UPLOAD_INVALID', 'an overlapping chunk');
      const lying = await registry(t.get(), 'PATCH', location, {
        secret: v.accessToken,
        headers: { 'content-range': '100000-100009' },
        body: bytes.subarray(100_000, 100_004),
      });
      assertRegistryError(lying, 416, 'BLOB_UPLOAD_INVALID', 'Content-Range and Content-Length disagree');

      const status = await registry(t.get(), 'GET', location, { secret: v.accessToken });
      assert.equal(status.status, 204);
      assert.equal(status.headers.get('range'), '0-99999', 'refused chunks left nothing behind');

      const second = await chunk(100_000, 249_999);
      assert.equal(second.headers.get('range'), '0-249999');
      const streamed = await registry(t.get(), 'PATCH', location, {
        secret: v.accessToken,
        body: bytes.subarray(250_000, 290_000),
      });
      assert.equal(streamed.status, 202, 'a chunk without Content-Range is appended (streamed upload)');
      const done = await registry(t.get(), 'PUT', `${location}?digest=${digest}`, {
        secret: v.accessToken,
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes.subarray(290_000),
      });
      assert.equal(done.status, 201, done.body.toString());
      assert.equal(done.headers.get('location'), `${base}/blobs/${digest}`);
      assert.equal(done.headers.get('docker-content-digest'), digest);
      const fetched = await registry(t.get(), 'GET', `${base}/blobs/${digest}`, { secret: v.accessToken });
      assert.deepEqual(fetched.body, bytes);
      assertRegistryError(
        await registry(t.get(), 'GET', location, { secret: v.accessToken }),
        404,
        'BLOB_UPLOAD_UNKNOWN',
      );

      const monolithic = randomBytes(1000);
      const single = await registry(t.get(), 'POST', `${base}/blobs/uploads/?digest=${sha256(monolithic)}`, {
        secret: v.accessToken,
        headers: { 'content-type': 'application/octet-stream' },
        body: monolithic,
      });
      assert.equal(single.status, 201, 'a monolithic POST stores the blob at once');
      assert.equal(single.headers.get('docker-content-digest'), sha256(monolithic));

      const cancelled = await registry(t.get(), 'POST', `${base}/blobs/uploads/`, { secret: v.accessToken });
      const cancelLocation = cancelled.headers.get('location') ?? '';
      assert.equal(
        (await registry(t.get(), 'DELETE', cancelLocation, { secret: v.accessToken })).status,
        204,
      );
      assertRegistryError(
        await registry(t.get(), 'DELETE', cancelLocation, { secret: v.accessToken }),
        404,
        'BLOB_UPLOAD_UNKNOWN',
      );
      assertRegistryError(
        await registry(t.get(), 'PATCH', `${base}/blobs/uploads/not-an-upload`, {
          secret: v.accessToken,
          body: 'x',
        }),
        404,
        'BLOB_UPLOAD_UNKNOWN',
      );
    });

    it('refuses a digest mismatch and stores nothing of it', async () => {
      const { store } = t.get();
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const base = `/v2/v/${v.data.versionId}`;
      const bytes = Buffer.from('the real content');
      const claimed = sha256('other content');
      const started = await registry(t.get(), 'POST', `${base}/blobs/uploads/`, { secret: v.accessToken });
      const location = started.headers.get('location') ?? '';
      const mismatch = await registry(t.get(), 'PUT', `${location}?digest=${claimed}`, {
        secret: v.accessToken,
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      assertRegistryError(mismatch, 400, 'DIGEST_INVALID');
      assert.match(mismatch.json().errors[0]?.message ?? '', new RegExp(sha256(bytes)));
      for (const digest of [claimed, sha256(bytes)]) {
        assertRegistryError(
          await registry(t.get(), 'HEAD', `${base}/blobs/${digest}`, { secret: v.accessToken }),
          404,
          'BLOB_UNKNOWN',
        );
        const file = join(store.dataDir, 'registry', 'blobs', 'sha256', digest.slice(7, 9), digest.slice(7));
        assert.equal(existsSync(file), false);
      }
      assertRegistryError(
        await registry(t.get(), 'GET', location, { secret: v.accessToken }),
        404,
        'BLOB_UPLOAD_UNKNOWN',
      );

      const monolithic = await registry(t.get(), 'POST', `${base}/blobs/uploads/?digest=${claimed}`, {
        secret: v.accessToken,
        body: bytes,
      });
      assertRegistryError(monolithic, 400, 'DIGEST_INVALID', 'monolithic mismatch');
      const noDigest = await registry(t.get(), 'POST', `${base}/blobs/uploads/`, { secret: v.accessToken });
      const finish = await registry(t.get(), 'PUT', noDigest.headers.get('location') ?? '', {
        secret: v.accessToken,
      });
      assertRegistryError(finish, 400, 'DIGEST_INVALID', 'PUT without ?digest');
      const badDigest = await registry(t.get(), 'PUT', `${noDigest.headers.get('location')}?digest=md5:abc`, {
        secret: v.accessToken,
      });
      assertRegistryError(badDigest, 400, 'DIGEST_INVALID', 'an unsupported algorithm');
    });

    it('checks manifests: shape, media type, referenced blobs and the digest named', async () => {
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const base = `/v2/v/${v.data.versionId}`;
      const config = Buffer.from(
        '{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}',
      );
      const configDigest = sha256(config);
      const put = (reference: string, body: Buffer | string, contentType: string = mediaTypes.ociManifest) =>
        registry(t.get(), 'PUT', `${base}/manifests/${reference}`, {
          secret: v.accessToken,
          headers: { 'content-type': contentType },
          body,
        });
      const manifest = (layers: { digest: string; size: number }[] = []) =>
        Buffer.from(
          JSON.stringify({
            schemaVersion: 2,
            mediaType: mediaTypes.ociManifest,
            config: { mediaType: mediaTypes.ociConfig, digest: configDigest, size: config.length },
            layers: layers.map((l) => ({ mediaType: mediaTypes.ociLayerGzip, ...l })),
          }),
        );
      assertRegistryError(
        await put('latest', manifest()),
        400,
        'MANIFEST_BLOB_UNKNOWN',
        'config not pushed yet',
      );
      assertRegistryError(await put('latest', '{not json'), 400, 'MANIFEST_INVALID', 'not JSON');
      assertRegistryError(
        await put('latest', '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}'),
        400,
        'MANIFEST_INVALID',
        'no config',
      );
      assertRegistryError(
        await put('latest', manifest(), 'application/vnd.docker.distribution.manifest.v1+prettyjws'),
        400,
        'MANIFEST_INVALID',
        'schema 1',
      );
      assertRegistryError(
        await put('latest', manifest(), mediaTypes.dockerManifest),
        400,
        'MANIFEST_INVALID',
        'type disagrees',
      );
      assertRegistryError(await put('bad tag!', manifest()), 400, 'MANIFEST_INVALID', 'bad tag');
      const huge = Buffer.alloc(4 * 1024 * 1024 + 1, 32);
      assertRegistryError(await put('latest', huge), 413, 'SIZE_INVALID', 'over 4 MiB');

      await registry(t.get(), 'POST', `${base}/blobs/uploads/?digest=${configDigest}`, {
        secret: v.accessToken,
        body: config,
      });
      const missingLayer = manifest([{ digest: sha256('layer never pushed'), size: 18 }]);
      assertRegistryError(
        await put('latest', missingLayer),
        400,
        'MANIFEST_BLOB_UNKNOWN',
        'layer not pushed',
      );
      const wrongSize = Buffer.from(manifest().toString().replace(`"size":${config.length}`, '"size":1'));
      assertRegistryError(await put('latest', wrongSize), 400, 'MANIFEST_INVALID', 'size mismatch');
      assertRegistryError(
        await put(sha256('something else'), manifest()),
        400,
        'DIGEST_INVALID',
        'digest reference mismatch',
      );
      assert.equal(
        (await versionRecord(t.get(), owner, v)).imageStatus,
        'awaiting_push',
        'nothing refused set the image',
      );

      const byDigest = await put(sha256(manifest()), manifest());
      assert.equal(byDigest.status, 201, 'a manifest pushed by digest is kept');
      assert.equal(
        (await versionRecord(t.get(), owner, v)).imageStatus,
        'awaiting_push',
        'but is no image until tagged',
      );
      const generic = await put('latest', manifest(), 'application/json');
      assert.equal(generic.status, 201, 'a generic Content-Type falls back to the mediaType field');
      assert.equal(generic.headers.get('location'), `${base}/manifests/${sha256(manifest())}`);
      assert.equal((await versionRecord(t.get(), owner, v)).imageDigest, sha256(manifest()));
    });

    it('keeps a version immutable: another image is refused, the same one re-pushes', async () => {
      const owner = await t.get().account();
      const v = await newVersion(t.get(), owner);
      const first = await imageLayout({ dir: strategyDir(strategyFiles), cmd: ['python3', 'main.py'] });
      const second = await imageLayout({
        dir: strategyDir({ 'main.py': 'print("v2")\n' }),
        cmd: ['python3', 'main.py'],
      });
      assert.equal((await push(`oci:${first.dir}:latest`, v, v.accessToken)).code, 0);
      const refused = await push(`oci:${second.dir}:latest`, v, v.accessToken);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /denied|immutable/i);
      const again = await push(`oci:${first.dir}:latest`, v, v.accessToken);
      assert.equal(again.code, 0, `re-pushing the same image is fine: ${again.stderr}`);
      const tagged = await skopeo([
        'copy',
        `oci:${first.dir}:latest`,
        `docker://${v.repositoryUrl}:stable`,
        '--dest-tls-verify=false',
        '--dest-creds',
        `x:${v.accessToken}`,
      ]);
      assert.equal(tagged.code, 0, 'another tag for the same image');
      const record = await versionRecord(t.get(), owner, v);
      assert.equal(record.imageDigest, first.digest, 'the first image stays');
      const tagsPath = `/v2/v/${v.data.versionId}/tags/list`;
      const page = await registry(t.get(), 'GET', `${tagsPath}?n=1`, { secret: owner.key });
      assert.deepEqual(JSON.parse(page.body.toString()).tags, ['latest']);
      assert.equal(page.headers.get('link'), `<${tagsPath}?n=1&last=latest>; rel="next"`);
      const next = await registry(t.get(), 'GET', `${tagsPath}?n=1&last=latest`, { secret: owner.key });
      assert.deepEqual(JSON.parse(next.body.toString()).tags, ['stable']);
      assert.equal(next.headers.get('link'), null, 'the last page has no Link');
      const manifest = readFileSync(join(second.dir, 'blobs', 'sha256', second.digest.slice(7)));
      const direct = await registry(t.get(), 'PUT', `/v2/v/${v.data.versionId}/manifests/v2`, {
        secret: v.accessToken,
        headers: { 'content-type': mediaTypes.ociManifest },
        body: manifest,
      });
      assertRegistryError(direct, 403, 'DENIED', 'a different manifest');
      assertRegistryError(
        await registry(t.get(), 'POST', `/v2/v/${v.data.versionId}/blobs/uploads/`, {
          secret: v.accessToken,
        }),
        403,
        'DENIED',
        'no uploads into a ready version',
      );
    });

    it('refuses wrong credentials: 401 unknown, 403 another repository or account or a pull-only key, 404 unknown names', async () => {
      const owner = await t.get().account();
      const stranger = await t.get().account('stranger');
      const v = await newVersion(t.get(), owner);
      const other = await newVersion(t.get(), owner);
      const layout = await imageLayout({ dir: strategyDir(strategyFiles), cmd: ['python3', 'main.py'] });

      const wrong = await push(`oci:${layout.dir}:latest`, v, 'wrong-token');
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stderr, /unauthorized|authentication required/i);
      const crossed = await push(`oci:${layout.dir}:latest`, v, other.accessToken);
      assert.notEqual(crossed.code, 0, "another version's token cannot push here");
      const withKey = await push(`oci:${layout.dir}:latest`, v, owner.key);
      assert.notEqual(withKey.code, 0, 'an API key only pulls');
      assert.equal((await versionRecord(t.get(), owner, v)).imageStatus, 'awaiting_push');

      const base = `/v2/v/${v.data.versionId}`;
      assertRegistryError(await registry(t.get(), 'POST', `${base}/blobs/uploads/`), 401, 'UNAUTHORIZED');
      assertRegistryError(
        await registry(t.get(), 'POST', `${base}/blobs/uploads/`, { secret: 'x.y.z' }),
        401,
        'UNAUTHORIZED',
      );
      assertRegistryError(
        await registry(t.get(), 'POST', `${base}/blobs/uploads/`, { secret: other.accessToken }),
        403,
        'DENIED',
      );
      assertRegistryError(
        await registry(t.get(), 'POST', `${base}/blobs/uploads/`, { secret: owner.key }),
        403,
        'DENIED',
      );
      assertRegistryError(
        await registry(t.get(), 'GET', `${base}/tags/list`, { secret: stranger.key }),
        403,
        'DENIED',
      );
      assertRegistryError(
        await registry(t.get(), 'GET', `${base}/tags/list`, { secret: stranger.session }),
        403,
        'DENIED',
      );
      assertRegistryError(
        await registry(t.get(), 'GET', `/v2/v/00000000-0000-4000-8000-000000000000/tags/list`, {
          secret: owner.key,
        }),
        404,
        'NAME_UNKNOWN',
      );
      assertRegistryError(
        await registry(t.get(), 'GET', `/v2/library/alpine/manifests/latest`, { secret: owner.key }),
        404,
        'NAME_UNKNOWN',
      );
      assertRegistryError(
        await registry(t.get(), 'GET', `/v2/v/not-a-uuid/manifests/latest`, { secret: owner.key }),
        404,
        'NAME_UNKNOWN',
      );
      assertRegistryError(
        await registry(t.get(), 'GET', `/v2/library/alpine/manifests/latest`),
        401,
        'UNAUTHORIZED',
      );
    });

    it('mounts a blob from another version of the same owner, and falls back to an upload otherwise', async () => {
      const owner = await t.get().account();
      const stranger = await t.get().account('stranger');
      const image = await buildStrategyImage(strategyFiles);
      const source = await newVersion(t.get(), owner);
      await pushToVersion(t.get().platform.url, source, image);
      const target = await newVersion(t.get(), owner);
      const layer = image.layer.digest;
      const mounted = await registry(
        t.get(),
        'POST',
        `/v2/v/${target.data.versionId}/blobs/uploads/?mount=${layer}&from=v/${source.data.versionId}`,
        { secret: target.accessToken },
      );
      assert.equal(mounted.status, 201);
      assert.equal(mounted.headers.get('location'), `/v2/v/${target.data.versionId}/blobs/${layer}`);
      assert.equal(
        (
          await registry(t.get(), 'HEAD', `/v2/v/${target.data.versionId}/blobs/${layer}`, {
            secret: target.accessToken,
          })
        ).status,
        200,
      );

      const foreign = await newVersion(t.get(), stranger);
      const fallback = await registry(
        t.get(),
        'POST',
        `/v2/v/${foreign.data.versionId}/blobs/uploads/?mount=${layer}&from=v/${source.data.versionId}`,
        { secret: foreign.accessToken },
      );
      assert.equal(fallback.status, 202, "another account's blob is never mounted: upload it instead");
      assert.ok(fallback.headers.get('docker-upload-uuid'));
      assertRegistryError(
        await registry(t.get(), 'HEAD', `/v2/v/${foreign.data.versionId}/blobs/${layer}`, {
          secret: foreign.accessToken,
        }),
        404,
        'BLOB_UNKNOWN',
        'a blob stored for another account is not visible',
      );
    });

    it('evicts: pulls and pushes answer 410 IMAGE_EVICTED, shared blobs stay until their last version goes', async () => {
      const { api, store } = t.get();
      const owner = await t.get().account();
      const strategy = (await api.post('/v1/strategies', { key: owner.key, body: { name: 'Evicted' } })).body
        .data.strategyId;
      const first = await newVersion(t.get(), owner, strategy);
      const second = await newVersion(t.get(), owner, strategy);
      // Content of its own: blobs of the other tests' images are shared with their versions.
      const dir = strategyDir({ ...strategyFiles, 'run.txt': randomBytes(8).toString('hex') });
      const layoutA = await imageLayout({ dir, cmd: ['python3', 'main.py'] });
      const layoutB = await imageLayout({ dir, cmd: ['python3', '-u', 'main.py'] });
      assert.equal((await push(`oci:${layoutA.dir}:latest`, first, first.accessToken)).code, 0);
      assert.equal((await push(`oci:${layoutB.dir}:latest`, second, second.accessToken)).code, 0);
      const [imageA] = layoutA.images;
      const [imageB] = layoutB.images;
      const file = (digest: string) =>
        join(store.dataDir, 'registry', 'blobs', 'sha256', digest.slice(7, 9), digest.slice(7));
      assert.equal(imageA?.layer.digest, imageB?.layer.digest, 'one shared layer');

      const inFlight = await registry(t.get(), 'POST', `/v2/v/${first.data.versionId}/blobs/uploads/`, {
        secret: first.accessToken,
      });
      assert.equal(inFlight.status, 403, 'a ready version takes no uploads');

      const evicted = await api.delete(`/v1/strategies/${strategy}/versions/${first.data.versionId}/image`, {
        key: owner.key,
      });
      assert.equal(evicted.status, 200);
      assert.equal(existsSync(file(imageA?.config.digest as string)), false);
      assert.equal(existsSync(file(imageA?.layer.digest as string)), true);

      const base = `/v2/v/${first.data.versionId}`;
      assertRegistryError(
        await registry(t.get(), 'GET', `${base}/manifests/latest`, { secret: owner.key }),
        410,
        'IMAGE_EVICTED',
      );
      assertRegistryError(
        await registry(t.get(), 'HEAD', `${base}/blobs/${imageA?.layer.digest}`, { secret: owner.key }),
        410,
        'IMAGE_EVICTED',
      );
      assertRegistryError(
        await registry(t.get(), 'POST', `${base}/blobs/uploads/`, { secret: first.accessToken }),
        410,
        'IMAGE_EVICTED',
      );
      const pulledEvicted = await pull(first, owner.key, `dir:${tempDir('evicted')}`);
      assert.notEqual(pulledEvicted.code, 0);
      const fresh = await newVersion(t.get(), owner, strategy);
      const mount = await registry(
        t.get(),
        'POST',
        `/v2/v/${fresh.data.versionId}/blobs/uploads/?mount=${imageA?.config.digest}&from=v/${first.data.versionId}`,
        { secret: fresh.accessToken },
      );
      assert.equal(mount.status, 202, 'nothing is mounted from an evicted version');

      const out = tempDir('survivor');
      const survivor = await pull(second, owner.key, `oci:${out}:latest`);
      assert.equal(survivor.code, 0, survivor.stderr);
      assert.deepEqual(layoutBlobs(out), layoutBlobs(layoutB.dir), 'the other version is whole');

      // An upload in progress on an awaiting version is discarded by its eviction.
      const pending = await newVersion(t.get(), owner, strategy);
      const upload = await registry(t.get(), 'POST', `/v2/v/${pending.data.versionId}/blobs/uploads/`, {
        secret: pending.accessToken,
      });
      const uploadId = upload.headers.get('docker-upload-uuid') ?? '';
      await registry(t.get(), 'PATCH', upload.headers.get('location') ?? '', {
        secret: pending.accessToken,
        body: 'partial',
      });
      assert.equal(existsSync(join(store.dataDir, 'registry', 'uploads', uploadId)), true);
      await api.delete(`/v1/strategies/${strategy}/versions/${pending.data.versionId}/image`, {
        key: owner.key,
      });
      assert.equal(existsSync(join(store.dataDir, 'registry', 'uploads', uploadId)), false);

      await api.delete(`/v1/strategies/${strategy}/versions/${second.data.versionId}/image`, {
        key: owner.key,
      });
      assert.equal(
        existsSync(file(imageA?.layer.digest as string)),
        false,
        'the last version took the layer with it',
      );
    });
  });
}
