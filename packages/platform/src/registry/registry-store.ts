import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { isUuid, newId, RegistryError } from '@hindsight/core';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/database.ts';
import {
  registryBlobLinks,
  registryBlobs,
  registryManifests,
  registryTags,
  registryUploads,
  strategyVersions,
} from '../db/schema.ts';
import type { ImageStatus } from '../repositories/versions.ts';
import { BlobStore } from './blob-store.ts';
import { type Descriptor, digestOf, type ParsedManifest, parseDigest, type Reference } from './manifests.ts';
import type { S3Blobs } from './s3-blobs.ts';

/** A version seen as a registry repository (`v/<versionId>`). */
export interface Repository {
  versionId: string;
  ownerId: string;
  imageStatus: ImageStatus;
  imageDigest?: string;
}

export interface StoredManifest {
  digest: string;
  mediaType: string;
  content: Buffer;
}

/** Uploads not completed within this time are discarded (at start). */
const STALE_UPLOAD_MS = 24 * 60 * 60 * 1000;

const evictedError = (versionId: string) =>
  new RegistryError(
    'IMAGE_EVICTED',
    `The image of version ${versionId} was evicted for good; create a new version to push an image.`,
    { versionId },
  );

/**
 * The registry's metadata in the database (which version links which blob, manifests, tags, uploads)
 * kept consistent with the blob files. Blob files are created and deleted only inside a transaction
 * that holds the blob's row lock, so an upload completing in one version and an eviction in another can
 * never lose a shared blob: the eviction deletes a file only when, under that lock, no link names it.
 */
export class RegistryStore {
  readonly blobs: BlobStore;
  /** Told when a version's image becomes ready (its first tagged manifest): auto-run starts there. */
  onImageReady: ((versionId: string) => void) | undefined;

  constructor(
    private readonly db: Db,
    dataDir: string,
    /** Completed blobs in a bucket (HINDSIGHT_STORAGE_URL); uploads in progress stay in the data dir. */
    remoteBlobs?: S3Blobs,
  ) {
    this.blobs = new BlobStore(join(dataDir, 'registry'), remoteBlobs);
  }

  async repository(versionId: string): Promise<Repository | undefined> {
    const [row] = await this.db
      .select({
        ownerId: strategyVersions.ownerId,
        imageStatus: strategyVersions.imageStatus,
        imageDigest: strategyVersions.imageDigest,
      })
      .from(strategyVersions)
      .where(eq(strategyVersions.id, versionId));
    if (!row) return undefined;
    return {
      versionId,
      ownerId: row.ownerId,
      imageStatus: row.imageStatus,
      ...(row.imageDigest !== null && { imageDigest: row.imageDigest }),
    };
  }

  /** Locks the version row for the rest of the transaction and refuses an evicted one. */
  private async lockVersion(tx: Tx, versionId: string, mode: 'share' | 'update') {
    const [version] = await tx
      .select({
        imageStatus: strategyVersions.imageStatus,
        imageDigest: strategyVersions.imageDigest,
      })
      .from(strategyVersions)
      .where(eq(strategyVersions.id, versionId))
      .for(mode);
    if (!version) throw new RegistryError('NAME_UNKNOWN', `Repository v/${versionId} does not exist.`);
    if (version.imageStatus === 'evicted') throw evictedError(versionId);
    return version;
  }

  async startUpload(versionId: string, now = new Date()): Promise<string> {
    const id = newId();
    await this.blobs.createUpload(id);
    await this.db.insert(registryUploads).values({ id, versionId, createdAt: now });
    return id;
  }

  async hasUpload(versionId: string, uploadId: string): Promise<boolean> {
    if (!isUuid(uploadId)) return false;
    const [row] = await this.db
      .select({ id: registryUploads.id })
      .from(registryUploads)
      .where(and(eq(registryUploads.id, uploadId), eq(registryUploads.versionId, versionId)));
    return row !== undefined;
  }

  appendToUpload(
    uploadId: string,
    body: Readable,
    check: (currentSize: number) => void,
    expectedLength?: number,
  ): Promise<number> {
    return this.blobs.append(uploadId, body, check, expectedLength);
  }

  async cancelUpload(uploadId: string): Promise<void> {
    await this.db.delete(registryUploads).where(eq(registryUploads.id, uploadId));
    await this.blobs.discardUpload(uploadId);
  }

  /**
   * Verifies the upload's bytes against `digest` and links the blob to the version. A mismatch stores
   * nothing and ends the upload (DIGEST_INVALID).
   */
  async completeUpload(
    versionId: string,
    uploadId: string,
    digest: string,
    now = new Date(),
  ): Promise<number> {
    const { algorithm } = parseDigest(digest);
    const actual = await this.blobs.uploadDigest(uploadId, algorithm);
    if (actual !== digest) {
      await this.cancelUpload(uploadId);
      throw new RegistryError(
        'DIGEST_INVALID',
        `The uploaded bytes have digest ${actual}, not ${digest}; nothing was stored and the upload is closed.`,
        { expected: digest, actual },
      );
    }
    const size = (await this.blobs.uploadSize(uploadId)) ?? 0;
    await this.db.transaction(async (tx) => {
      await this.lockVersion(tx, versionId, 'share');
      // The upsert takes the blob row's lock (see the class comment) before the file is moved in.
      await tx
        .insert(registryBlobs)
        .values({ digest, size, createdAt: now })
        .onConflictDoUpdate({ target: registryBlobs.digest, set: { size: sql`excluded.size` } });
      await tx.insert(registryBlobLinks).values({ versionId, digest, createdAt: now }).onConflictDoNothing();
      await tx.delete(registryUploads).where(eq(registryUploads.id, uploadId));
      await this.blobs.commitUpload(uploadId, digest);
    });
    return size;
  }

  /** The size of a blob the version's repository holds, or undefined. */
  async blobSize(versionId: string, digest: string): Promise<number | undefined> {
    const [row] = await this.db
      .select({ size: registryBlobs.size })
      .from(registryBlobLinks)
      .innerJoin(registryBlobs, eq(registryBlobs.digest, registryBlobLinks.digest))
      .where(and(eq(registryBlobLinks.versionId, versionId), eq(registryBlobLinks.digest, digest)));
    return row?.size;
  }

  /**
   * Cross-repository mount: links a blob another version of the same owner already holds. False when
   * that is not the case (the client then uploads it: 202).
   */
  async mountBlob(
    versionId: string,
    ownerId: string,
    digest: string,
    from: string,
    now = new Date(),
  ): Promise<boolean> {
    const fromVersion = /^v\/(.+)$/.exec(from)?.[1];
    if (!fromVersion || !isUuid(fromVersion) || fromVersion === versionId) return false;
    return this.db.transaction(async (tx) => {
      await this.lockVersion(tx, versionId, 'share');
      const [source] = await tx
        .select({ digest: registryBlobs.digest })
        .from(registryBlobLinks)
        .innerJoin(strategyVersions, eq(strategyVersions.id, registryBlobLinks.versionId))
        .innerJoin(registryBlobs, eq(registryBlobs.digest, registryBlobLinks.digest))
        .where(
          and(
            eq(registryBlobLinks.versionId, fromVersion),
            eq(registryBlobLinks.digest, digest),
            eq(strategyVersions.ownerId, ownerId),
          ),
        )
        .for('share', { of: registryBlobs });
      if (!source) return false;
      await tx.insert(registryBlobLinks).values({ versionId, digest, createdAt: now }).onConflictDoNothing();
      return true;
    });
  }

  /**
   * Stores a pushed manifest. The first manifest pushed under a tag becomes the version's image (status
   * ready); manifests pushed by digest before that are parts of it (an index's platform manifests).
   * Once the image is set the repository is immutable: only re-pushes of manifests it holds are taken.
   */
  async putManifest(
    versionId: string,
    reference: Reference,
    bytes: Buffer,
    manifest: ParsedManifest,
    now = new Date(),
  ): Promise<string> {
    const algorithm = reference.kind === 'digest' ? parseDigest(reference.digest).algorithm : 'sha256';
    const digest = digestOf(bytes, algorithm);
    if (reference.kind === 'digest' && reference.digest !== digest) {
      throw new RegistryError(
        'DIGEST_INVALID',
        `The manifest's digest is ${digest}, not ${reference.digest}.`,
        { expected: reference.digest, actual: digest },
      );
    }
    let becameReady = false;
    await this.db.transaction(async (tx) => {
      const version = await this.lockVersion(tx, versionId, 'update');
      const [existing] = await tx
        .select({ digest: registryManifests.digest })
        .from(registryManifests)
        .where(and(eq(registryManifests.versionId, versionId), eq(registryManifests.digest, digest)));
      const image = version.imageDigest;
      if (version.imageStatus === 'ready' && (!existing || (reference.kind === 'tag' && digest !== image))) {
        throw new RegistryError(
          'DENIED',
          `Version ${versionId} is immutable: its image is ${image}. Create a new version to push another image.`,
          { versionId, imageDigest: image },
        );
      }
      if (!existing) {
        await this.assertReferencesHeld(tx, versionId, manifest);
        await tx.insert(registryManifests).values({
          versionId,
          digest,
          mediaType: manifest.mediaType,
          content: bytes,
          createdAt: now,
        });
      }
      if (reference.kind !== 'tag') return;
      if (version.imageStatus === 'awaiting_push') {
        await tx
          .update(strategyVersions)
          .set({
            imageStatus: 'ready',
            imageDigest: digest,
            imageMediaType: manifest.mediaType,
            updatedAt: now,
          })
          .where(eq(strategyVersions.id, versionId));
        becameReady = true;
      }
      await tx
        .insert(registryTags)
        .values({ versionId, tag: reference.tag, digest, createdAt: now })
        .onConflictDoNothing();
    });
    if (becameReady) this.onImageReady?.(versionId);
    return digest;
  }

  private async assertReferencesHeld(tx: Tx, versionId: string, manifest: ParsedManifest): Promise<void> {
    const unknown = (d: Descriptor, what: string) =>
      new RegistryError(
        'MANIFEST_BLOB_UNKNOWN',
        `The manifest references ${what} ${d.digest}, which this repository does not hold; push it first.`,
        {
          digest: d.digest,
        },
      );
    const blobDigests = manifest.blobs.map((d) => d.digest);
    const held = blobDigests.length
      ? await tx
          .select({ digest: registryBlobs.digest, size: registryBlobs.size })
          .from(registryBlobLinks)
          .innerJoin(registryBlobs, eq(registryBlobs.digest, registryBlobLinks.digest))
          .where(
            and(eq(registryBlobLinks.versionId, versionId), inArray(registryBlobLinks.digest, blobDigests)),
          )
      : [];
    const sizes = new Map(held.map((b) => [b.digest, b.size]));
    for (const d of manifest.blobs) {
      const size = sizes.get(d.digest);
      if (size === undefined) throw unknown(d, 'the blob');
      if (size !== d.size) {
        throw new RegistryError(
          'MANIFEST_INVALID',
          `The manifest gives blob ${d.digest} a size of ${d.size} bytes; it has ${size}.`,
          { digest: d.digest, size },
        );
      }
    }
    const childDigests = manifest.manifests.map((d) => d.digest);
    const children = childDigests.length
      ? await tx
          .select({ digest: registryManifests.digest })
          .from(registryManifests)
          .where(
            and(eq(registryManifests.versionId, versionId), inArray(registryManifests.digest, childDigests)),
          )
      : [];
    const childSet = new Set(children.map((c) => c.digest));
    for (const d of manifest.manifests) if (!childSet.has(d.digest)) throw unknown(d, 'the manifest');
  }

  async manifest(versionId: string, reference: Reference): Promise<StoredManifest | undefined> {
    let digest = reference.kind === 'digest' ? reference.digest : undefined;
    if (reference.kind === 'tag') {
      const [tag] = await this.db
        .select({ digest: registryTags.digest })
        .from(registryTags)
        .where(and(eq(registryTags.versionId, versionId), eq(registryTags.tag, reference.tag)));
      digest = tag?.digest;
    }
    if (!digest) return undefined;
    const [row] = await this.db
      .select({ mediaType: registryManifests.mediaType, content: registryManifests.content })
      .from(registryManifests)
      .where(and(eq(registryManifests.versionId, versionId), eq(registryManifests.digest, digest)));
    return row && { digest, mediaType: row.mediaType, content: row.content };
  }

  async tags(versionId: string): Promise<string[]> {
    const rows = await this.db
      .select({ tag: registryTags.tag })
      .from(registryTags)
      .where(eq(registryTags.versionId, versionId))
      .orderBy(registryTags.tag);
    return rows.map((r) => r.tag);
  }

  /**
   * Evicts the version's image for good: its manifests, tags, uploads and blob links go, blobs no other
   * version links are deleted from disk, and the version is marked evicted. Evicting again is a no-op.
   */
  async evict(versionId: string, now = new Date()): Promise<{ deletedBlobs: string[] }> {
    const deletedBlobs: string[] = [];
    const uploads = await this.db.transaction(async (tx) => {
      const [version] = await tx
        .select({ imageStatus: strategyVersions.imageStatus })
        .from(strategyVersions)
        .where(eq(strategyVersions.id, versionId))
        .for('update');
      if (!version) throw new Error(`version ${versionId} does not exist`);
      if (version.imageStatus !== 'evicted') {
        await tx
          .update(strategyVersions)
          .set({ imageStatus: 'evicted', evictedAt: now, updatedAt: now })
          .where(eq(strategyVersions.id, versionId));
      }
      const unlinked = await tx
        .delete(registryBlobLinks)
        .where(eq(registryBlobLinks.versionId, versionId))
        .returning({ digest: registryBlobLinks.digest });
      await tx.delete(registryTags).where(eq(registryTags.versionId, versionId));
      await tx.delete(registryManifests).where(eq(registryManifests.versionId, versionId));
      const dropped = await tx
        .delete(registryUploads)
        .where(eq(registryUploads.versionId, versionId))
        .returning({ id: registryUploads.id });
      const candidates = unlinked.map((l) => l.digest).sort();
      if (candidates.length > 0) {
        // Lock first, then look for remaining links in a new statement (it sees links committed meanwhile).
        await tx
          .select({ digest: registryBlobs.digest })
          .from(registryBlobs)
          .where(inArray(registryBlobs.digest, candidates))
          .orderBy(registryBlobs.digest)
          .for('update');
        const stillLinked = await tx
          .selectDistinct({ digest: registryBlobLinks.digest })
          .from(registryBlobLinks)
          .where(inArray(registryBlobLinks.digest, candidates));
        const shared = new Set(stillLinked.map((l) => l.digest));
        for (const digest of candidates) if (!shared.has(digest)) deletedBlobs.push(digest);
        if (deletedBlobs.length > 0) {
          await tx.delete(registryBlobs).where(inArray(registryBlobs.digest, deletedBlobs));
          for (const digest of deletedBlobs) await this.blobs.remove(digest);
        }
      }
      return dropped.map((u) => u.id);
    });
    for (const id of uploads) await this.blobs.discardUpload(id);
    return { deletedBlobs };
  }

  /** Discards uploads older than a day, and upload files without an upload row (left by a crash). */
  async purgeStaleUploads(now = new Date()): Promise<number> {
    const stale = await this.db
      .delete(registryUploads)
      .where(lt(registryUploads.createdAt, new Date(now.getTime() - STALE_UPLOAD_MS)))
      .returning({ id: registryUploads.id });
    for (const { id } of stale) await this.blobs.discardUpload(id);
    const files = (await this.blobs.uploadIds()).filter(isUuid);
    const live = files.length
      ? await this.db
          .select({ id: registryUploads.id })
          .from(registryUploads)
          .where(inArray(registryUploads.id, files))
      : [];
    const liveIds = new Set(live.map((u) => u.id));
    let orphans = 0;
    for (const id of files) {
      if (liveIds.has(id)) continue;
      const { mtimeMs } = await stat(join(this.blobs.root, 'uploads', id));
      // A file younger than an hour may be an upload another process is creating right now.
      if (now.getTime() - mtimeMs < 60 * 60 * 1000) continue;
      await this.blobs.discardUpload(id);
      orphans += 1;
    }
    return stale.length + orphans;
  }
}
