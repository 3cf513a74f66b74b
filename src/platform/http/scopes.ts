// Scopes and derived scopes exactly as SPEC §5.
export const scopes = [
  'documents:create',
  'documents:read',
  'documents:send',
  'received:read',
  'sequences:read',
  'sequences:allocate',
  'sequences:manage',
  'taxpayers:read',
  'webhooks:manage',
  'certification:manage',
] as const;

export type Scope = (typeof scopes)[number];

const derived: Partial<Record<Scope, readonly Scope[]>> = {
  'sequences:manage': ['sequences:allocate'],
  'documents:create': ['taxpayers:read'],
  'documents:read': ['taxpayers:read', 'received:read'],
};

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/** The granted scopes plus what they derive (one level: SPEC §5 defines no chains). */
export function effectiveScopes(granted: readonly Scope[]): Set<Scope> {
  const result = new Set<Scope>(granted);
  for (const scope of granted) for (const extra of derived[scope] ?? []) result.add(extra);
  return result;
}

/** The granted scopes that would give `required`, directly or derived. */
export function scopesGranting(required: Scope): Scope[] {
  return scopes.filter((scope) => scope === required || (derived[scope] ?? []).includes(required));
}
