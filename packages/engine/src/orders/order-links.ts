/**
 * Links between orders (docs/fills.md): one-cancels-other groups (a client `oco_group_id`, or the two
 * exit legs of a bracket) and the exit legs the engine placed, with the position each protects.
 * Bookkeeping only: the engine cancels the orders `dissolve` names.
 */
export type LegKind = 'stop' | 'take';

export interface ExitLeg {
  leg: LegKind;
  /** Hedging: the position the leg exits; netting: undefined (the symbol's position). */
  positionId: string | undefined;
}

export class OrderLinks {
  private readonly groups = new Map<string, Set<string>>();
  private readonly groupOf = new Map<string, string>();
  private readonly legs = new Map<string, ExitLeg>();

  /** Puts a client order in its `oco_group_id` group. */
  joinClientGroup(ocoGroupId: string, orderId: string): void {
    this.join(`oco:${ocoGroupId}`, orderId);
  }

  /** Tracks an exit leg of `entryId`; the legs of one entry cancel each other. */
  addLeg(entryId: string, orderId: string, leg: ExitLeg): void {
    this.legs.set(orderId, leg);
    this.join(bracketOf(entryId), orderId);
  }

  leg(orderId: string): ExitLeg | undefined {
    return this.legs.get(orderId);
  }

  isLeg(orderId: string): boolean {
    return this.legs.has(orderId);
  }

  isLinked(orderId: string): boolean {
    return this.groupOf.has(orderId);
  }

  /** Every tracked leg with its order id (removing entries while iterating is safe). */
  allLegs(): IterableIterator<[string, ExitLeg]> {
    return this.legs.entries();
  }

  /** The legs of `entryId` still tracked. */
  legsOfEntry(entryId: string): string[] {
    return [...(this.groups.get(bracketOf(entryId)) ?? [])].filter((id) => this.legs.has(id));
  }

  /** One order leaves its group and stops being a tracked leg (it was cancelled or replaced). */
  forget(orderId: string): void {
    this.legs.delete(orderId);
    const group = this.groupOf.get(orderId);
    if (!group) return;
    this.groupOf.delete(orderId);
    this.groups.get(group)?.delete(orderId);
  }

  /** Ends the group of `orderId`; returns its members other than `keep`, for the engine to cancel. */
  dissolve(orderId: string, keep?: string): string[] {
    const group = this.groupOf.get(orderId);
    if (!group) return [];
    const members = this.groups.get(group) ?? new Set<string>();
    this.groups.delete(group);
    const others: string[] = [];
    for (const member of members) {
      this.groupOf.delete(member);
      this.legs.delete(member);
      if (member !== keep) others.push(member);
    }
    return others;
  }

  /** When both legs of a bracket are touchable in one bar, the stop is assumed first (docs/fills.md). */
  stopLegsFirst<T extends { orderId: string }>(fills: T[]): T[] {
    if (fills.length < 2) return fills;
    const rank = (f: T) => {
      const leg = this.legs.get(f.orderId);
      const group = this.groupOf.get(f.orderId);
      const bothLegs = leg && group && fills.filter((g) => this.groupOf.get(g.orderId) === group).length > 1;
      return bothLegs && leg.leg === 'stop' ? 0 : 1;
    };
    const stops = fills.filter((f) => rank(f) === 0);
    return stops.length === 0 ? fills : [...stops, ...fills.filter((f) => rank(f) !== 0)];
  }

  private join(group: string, orderId: string): void {
    const members = this.groups.get(group) ?? new Set<string>();
    members.add(orderId);
    this.groups.set(group, members);
    this.groupOf.set(orderId, group);
  }
}

const bracketOf = (entryId: string) => `bracket:${entryId}`;
