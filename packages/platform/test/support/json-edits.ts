/**
 * Edits of JSON bodies at picked paths, for the fuzz tests: every path of a body (to a depth), and a
 * copy of the body with each edit applied where its `pick` lands (in place, replaced, or removed).
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type PathSegment = string | number;

/** Every path into `value` (the root's empty path first), no deeper than `maxDepth`. */
export function pathsOf(value: Json, maxDepth: number, prefix: PathSegment[] = []): PathSegment[][] {
  const paths: PathSegment[][] = [prefix];
  if (prefix.length >= maxDepth) return paths;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) paths.push(...pathsOf(item, maxDepth, [...prefix, i]));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, maxDepth, [...prefix, key]));
  }
  return paths;
}

/** What an edit answers when it changed the value in place (added a key, pushed an item). */
export const EDITED_IN_PLACE = Symbol('edited in place');

/**
 * A copy of `body` with every edit applied in turn, each at the path its `pick` lands on: `edit` gets the
 * value there and answers its replacement, undefined to remove it, or EDITED_IN_PLACE.
 */
export function editAtPaths<E extends { pick: number }>(
  body: Json,
  edits: readonly E[],
  maxDepth: number,
  edit: (what: E, current: Json) => Json | undefined | typeof EDITED_IN_PLACE,
): Json {
  let root: Json = structuredClone(body);
  for (const what of edits) {
    const paths = pathsOf(root, maxDepth);
    const path = paths[what.pick % paths.length] as PathSegment[];
    const parent = path.slice(0, -1).reduce<Json>((node, key) => (node as never)[key] as Json, root);
    const last = path.at(-1);
    const current = last === undefined ? root : ((parent as never)[last] as Json);
    const next = edit(what, current);
    if (next === EDITED_IN_PLACE) continue;
    if (last === undefined) root = next === undefined ? {} : next;
    else if (Array.isArray(parent)) {
      if (next === undefined) parent.splice(last as number, 1);
      else parent[last as number] = next;
    } else if (typeof parent === 'object' && parent !== null) {
      if (next === undefined) delete parent[last as string];
      else parent[last as string] = next;
    }
  }
  return root;
}
