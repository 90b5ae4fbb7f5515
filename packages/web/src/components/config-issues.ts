/**
 * Puts the API's validation errors on the form fields they name. A 400 from the configuration routes
 * carries `details`: a JSON array of `{path, message}` whose paths are written by core's `formatPath`
 * (`subscriptions[0].instrument`, `costs.commission.fee_rate_bps`, `env["MY-KEY"]`). The editor lists
 * its fields in form order as (path, element id) pairs; each issue goes to the field with the longest
 * path that is the issue's path or a prefix of it (`subscriptions[0].events[2]` lands on the events of
 * subscription 0), and what matches no field is shown above the form.
 */
import { errorMessage } from '../api/client.ts';

export interface Issue {
  path: string;
  message: string;
}

/** A field the editor can show errors on: its API path and the id of the element that takes focus. */
export interface FieldSlot {
  path: string;
  focusId: string;
}

export interface PlacedIssues {
  /** Messages by field path (only paths of `slots`). */
  byField: Map<string, string[]>;
  /** Issues no field took, and errors without details (409, 5xx), as lines for the top of the form. */
  general: string[];
  /** The element to focus: the first field in form order with an error. */
  focusId: string | undefined;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The same rendering as core's formatPath, so the editor's paths are spelled as the API spells them. */
export function formatPath(path: readonly (string | number)[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** The issues of an error body's `details`, or none when it has no such list. */
export function issuesOf(error: unknown): Issue[] {
  const details = (error as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (typeof details !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(details);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (item): item is Issue =>
        typeof item === 'object' &&
        item !== null &&
        typeof (item as Issue).path === 'string' &&
        typeof (item as Issue).message === 'string',
    );
  } catch {
    return [];
  }
}

const isWithin = (path: string, field: string): boolean =>
  path === field || (path.startsWith(field) && (path[field.length] === '.' || path[field.length] === '['));

/** Sorts an error response's issues onto the fields of `slots`. */
export function placeIssues(error: unknown, slots: readonly FieldSlot[], fallback: string): PlacedIssues {
  const issues = issuesOf(error);
  const byField = new Map<string, string[]>();
  const general: string[] = [];
  if (issues.length === 0) general.push(errorMessage(error, fallback));
  for (const issue of issues) {
    let best: FieldSlot | undefined;
    for (const slot of slots) {
      if (isWithin(issue.path, slot.path) && (!best || slot.path.length > best.path.length)) best = slot;
    }
    if (!best) {
      general.push(issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`);
      continue;
    }
    // A deeper path than the field's (one event of the list, one day of the multipliers) keeps its tail.
    const tail = issue.path.slice(best.path.length).replace(/^\./, '');
    const message = tail === '' ? issue.message : `${tail}: ${issue.message}`;
    byField.set(best.path, [...(byField.get(best.path) ?? []), message]);
  }
  const focusId = slots.find((slot) => byField.has(slot.path))?.focusId;
  return { byField, general, focusId };
}
