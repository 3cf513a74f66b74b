import { Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { ControlPlaneEvent, EventOutcome, eventTypes } from './control-plane.schema.js';
import type { ControlPlaneService } from './control-plane.service.js';

export function controlPlaneRoutes(controlPlane: ControlPlaneService) {
  return [
    defineRoute({
      method: 'POST',
      url: '/internal/cloud/v1/events',
      auth: { kind: 'cloud' },
      docs: {
        operationId: 'receiveControlPlaneEvent',
        summary: 'Apply a provisioning or permissions event from the control plane',
        description: `Event types: ${eventTypes.map((type) => `\`${type}\``).join(', ')}. The event id is the webhook-id header; a replayed id answers 409.`,
        tags: ['Control plane'],
        examples: {
          request: {
            type: 'company.provisioned',
            data: {
              rnc: '131876544',
              legalName: 'Comercial Ejemplo del Caribe, S.R.L.',
              plan: 'pro',
              capabilities: ['issuing', 'receiving', 'webhooks'],
            },
          },
          response: envelopeExample({
            eventId: 'msg_8ccafc87-4d94-41e6-a076-11755027e829',
            type: 'company.provisioned',
            companyId: 'cmp_o3al1GAokwQfspl5Mgub',
            outcome: 'applied',
          }),
        },
      },
      schema: { body: ref(ControlPlaneEvent), response: { 200: Envelope(ref(EventOutcome)) } },
      handler: async (request) => {
        const eventId = request.signedMessageId;
        if (eventId === undefined) throw new Error('cloud route reached without a verified message id');
        return envelope(request, unwrap(await controlPlane.apply(eventId, request.body)));
      },
    }),
  ];
}
