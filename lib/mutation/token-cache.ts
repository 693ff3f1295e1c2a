/**
 * The token digests of blobs by blob id, kept across calls: in the hook server the old side of a
 * commit's files is the new side of the commit before, so each commit tokenises only its new
 * blobs (and post-commit none that the read-ahead did). Sound because a blob id is the hash of the
 * blob's content (lib/git/loose.ts checks it when it reads a loose object). Bounded by entries, the
 * least recently used leaving first, so a long-lived server's memory stays flat.
 */
import { tokenDigest, type TokenDigest } from './tokens.js';

/** How many blobs' digests are kept (an entry is ~200 bytes: ~0.4 MB at most). */
export const TOKEN_CACHE_ENTRIES = 2048;

// Map keeps insertion order: the first key is the least recently used.
const cache = new Map<string, TokenDigest>();

/** The token digest of the blob `oid` whose text is `text`, from the cache when it was computed before. */
export function blobTokenDigest(oid: string, text: string): TokenDigest {
  const hit = cache.get(oid);
  if (hit !== undefined) {
    cache.delete(oid);
    cache.set(oid, hit);
    return hit;
  }
  const d = tokenDigest(text);
  cache.set(oid, d);
  if (cache.size > TOKEN_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return d;
}

/** How many digests the cache holds (for the tests). */
export function tokenCacheSize(): number {
  return cache.size;
}

/** Empties the cache (for the tests and benchmarks: a cold start). */
export function clearTokenCache(): void {
  cache.clear();
}
