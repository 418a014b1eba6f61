import { Type, type Static } from 'typebox';
import { AgentMessageBody, KillResponse } from './planning';

/**
 * The DevOps Helper. The project is the one named by the Project-Id header. Its stream frames and its
 * approval socket messages are in events.ts.
 */

/** POST /api/devops-helper/chat (SSE, `DevopsHelperStreamFrame`s). */
export const DevopsHelperChatBody = AgentMessageBody;
export type DevopsHelperChatBody = Static<typeof DevopsHelperChatBody>;

/** Answer of POST /api/devops-helper/kill (no body). */
export const DevopsHelperKillResponse = KillResponse;
export type DevopsHelperKillResponse = KillResponse;

/** Id of an approval request, as the approval socket announced it. */
export const ApprovalId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });

/**
 * POST /api/devops-helper/approval: decide one approval request. Approving runs exactly the command that
 * was announced, once. An unknown or expired id answers 404; a second decision answers 409.
 */
export const ApprovalBody = Type.Object(
  { approval_id: ApprovalId, approved: Type.Boolean() },
  { additionalProperties: false },
);
export type ApprovalBody = Static<typeof ApprovalBody>;

/** Answer of POST /api/devops-helper/approval. */
export const ApprovalResponse = Type.Object({
  approval_id: ApprovalId,
  status: Type.Enum(['approved', 'denied']),
});
export type ApprovalResponse = Static<typeof ApprovalResponse>;
