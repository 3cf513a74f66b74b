import { Type, type Static } from 'typebox';
import {
  CertificateInstall,
  CompanyProvision,
  CompanySuspension,
  CompanyUpdate,
  PermissionsChange,
} from '../companies/index.js';

/** The control plane's events (DESIGN §6.2 leaves their shapes to us; docs/api.md, "Tenancy", documents them). */

const strict = { additionalProperties: false } as const;
const AnyEvent = Type.Union([
  Type.Object({ type: Type.Literal('company.provisioned'), data: CompanyProvision }, strict),
  Type.Object({ type: Type.Literal('company.updated'), data: CompanyUpdate }, strict),
  Type.Object({ type: Type.Literal('company.permissions_changed'), data: PermissionsChange }, strict),
  Type.Object({ type: Type.Literal('company.suspended'), data: CompanySuspension }, strict),
  Type.Object({ type: Type.Literal('certificate.installed'), data: CertificateInstall }, strict),
]);
const branches = AnyEvent.anyOf;
export type ControlPlaneEvent = Static<typeof AnyEvent>;
export type EventType = ControlPlaneEvent['type'];
export const eventTypes: EventType[] = branches.map((branch) => branch.properties.type.const);

// A discriminated oneOf, so a bad event is reported against the branch its `type` names, not all five.
export const ControlPlaneEvent = Type.Unsafe<ControlPlaneEvent>({
  $id: 'ControlPlaneEvent',
  type: 'object',
  required: ['type', 'data'],
  discriminator: { propertyName: 'type' },
  oneOf: branches,
  description: 'Signed by the control plane: webhook-id (the event id), webhook-timestamp, webhook-signature.',
});

export const EventOutcome = Type.Object(
  {
    eventId: Type.String(),
    type: Type.String(),
    companyId: Type.String(),
    outcome: Type.Union([Type.Literal('applied'), Type.Literal('unchanged')], {
      description: '`unchanged` when the event matched the current state: applying an event twice has one effect.',
    }),
  },
  { $id: 'EventOutcome' },
);
export type EventOutcome = Static<typeof EventOutcome>;

export const controlPlaneSchemas = [ControlPlaneEvent, EventOutcome];
