import type { ApprovalClientMessage, ApprovalServerMessage, RunsOn } from '../../../shared/events';

/** A frame's `runs_on` when it has the contract's shape, else nothing (the card then says nothing of it). */
function runsOnOf(value: unknown): RunsOn | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<Record<string, unknown>>;
  if (v.kind === 'sandbox') return { kind: 'sandbox' };
  if (v.kind === 'server' && typeof v.name === 'string' && typeof v.address === 'string') return { kind: 'server', name: v.name, address: v.address };
  return undefined;
}
import { createSocketChannel, webSocketUrl, type SocketChannel } from '../../common/channels/socketChannel';

/** Accepts `approval_request` and `pong` frames of the contract's shape; anything else is skipped. */
export function parseApprovalFrame(raw: string): ApprovalServerMessage | null {
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null) return null;
  const frame = parsed as Partial<Record<string, unknown>>;
  if (frame.type === 'pong') return { type: 'pong' };
  if (frame.type !== 'approval_request' || typeof frame.id !== 'string' || typeof frame.command !== 'string') return null;
  return {
    type: 'approval_request',
    id: frame.id,
    command: frame.command,
    ...(typeof frame.dangerous_reason === 'string' ? { dangerous_reason: frame.dangerous_reason } : {}),
    ...(runsOnOf(frame.runs_on) ? { runs_on: runsOnOf(frame.runs_on) } : {}),
  };
}

/**
 * The DevOps Helper's approval socket, `/api/devops-helper/ws/approval/{projectId}` on this origin (the
 * session cookie authenticates it), as an `eventChannel` whose close closes the socket.
 *
 * @example wire frames
 *   → {"type":"ping"}
 *   ← {"type":"approval_request","id":"3f2c…","command":"df -h"}
 */
export function createApprovalChannel(projectId: number): SocketChannel<ApprovalServerMessage, ApprovalClientMessage> {
  return createSocketChannel<ApprovalServerMessage, ApprovalClientMessage>(webSocketUrl(`/api/devops-helper/ws/approval/${projectId}`), parseApprovalFrame);
}
