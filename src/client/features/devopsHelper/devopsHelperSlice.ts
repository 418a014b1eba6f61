import type { RunsOn } from '../../../shared/events';
import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from '../../app/store';
import { turnEnded, turnFailed, turnStopped } from '../../common/chat/chatSlice';

export type ApprovalStatus = 'pending' | 'sending' | 'approved' | 'denied' | 'expired';

/** A message of role `approval`: a command the helper wants to run, shown after the chat message it came with. */
export interface ApprovalItem {
  id: string;
  command: string;
  dangerousReason: string | null;
  /** Where the command runs once approved (the server's word); absent from servers that do not say. */
  runsOn?: RunsOn;
  /** The chat message (of the helper's chat) this card follows; 0 before any message. */
  afterMessageId: number;
  status: ApprovalStatus;
}

export interface DevopsHelperState {
  /** By chat key (`chatKey(projectId, 'devops-helper')`). */
  approvals: Record<string, ApprovalItem[]>;
}

const initialState: DevopsHelperState = { approvals: {} };

/** The helper's chat key within a project. */
export const devopsHelperChatKey = (projectId: number): string => `${projectId}:devops-helper`;

/** A turn is over: a request still waiting can no longer run (the server cancelled it). */
const expireWaiting = (state: DevopsHelperState, action: PayloadAction<{ key: string }>): void => {
  for (const item of state.approvals[action.payload.key] ?? []) if (item.status === 'pending') item.status = 'expired';
};

/**
 * The DevOps Helper's approval messages (part 2 sections 2 and 4). The user and assistant messages live
 * in the common chat slice; `devopsHelperSaga` adds requests from the approval socket.
 */
export const devopsHelperSlice = createSlice({
  name: 'devopsHelper',
  initialState,
  reducers: {
    /** The helper page opened for a project: the saga connects its approval socket. */
    panelOpened(_state, _action: PayloadAction<{ projectId: number }>) {},
    /** The page closed: the saga closes the socket. */
    panelClosed(_state, _action: PayloadAction<{ projectId: number }>) {},
    /** The person sent a message to the helper. */
    messageSubmitted(_state, _action: PayloadAction<{ projectId: number; message: string }>) {},
    /** An `approval_request` arrived over the socket (a repeat of a known id is ignored). */
    approvalRequested(state, action: PayloadAction<{ key: string; item: Omit<ApprovalItem, 'status'> }>) {
      const list = (state.approvals[action.payload.key] ??= []);
      if (!list.some((a) => a.id === action.payload.item.id)) list.push({ ...action.payload.item, status: 'pending' });
    },
    /** Approve or Deny was pressed; the decision is being sent. */
    approvalDecisionSent(state, action: PayloadAction<{ key: string; id: string }>) {
      const item = state.approvals[action.payload.key]?.find((a) => a.id === action.payload.id);
      if (item?.status === 'pending') item.status = 'sending';
    },
    /** The server took the decision (or said the request is gone: `expired`). */
    approvalSettled(state, action: PayloadAction<{ key: string; id: string; status: 'approved' | 'denied' | 'expired' | 'pending' }>) {
      const item = state.approvals[action.payload.key]?.find((a) => a.id === action.payload.id);
      if (item) item.status = action.payload.status;
    },
  },
  extraReducers: (builder) => {
    builder.addCase(turnEnded, expireWaiting).addCase(turnFailed, expireWaiting).addCase(turnStopped, expireWaiting);
  },
  selectors: {
    selectApprovals: (state, key: string): ApprovalItem[] => state.approvals[key] ?? EMPTY,
  },
});

const EMPTY: ApprovalItem[] = [];

export const { panelOpened, panelClosed, messageSubmitted, approvalRequested, approvalDecisionSent, approvalSettled } = devopsHelperSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof devopsHelperSlice> {}
}

const injected = devopsHelperSlice.injectInto(rootReducer);
export const { selectApprovals } = injected.selectors;
