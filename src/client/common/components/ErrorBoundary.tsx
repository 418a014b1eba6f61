import { Component, type ErrorInfo, type ReactNode } from 'react';
import { logError } from '../log';

export interface ErrorBoundaryProps {
  /** Rendered instead of the children after they threw. */
  fallback: ReactNode;
  children: ReactNode;
  /** Changing it clears the error, e.g. the id of the stage being shown. */
  resetKey?: unknown;
}

interface ErrorBoundaryState {
  failed: boolean;
  resetKey: unknown;
}

/**
 * Keeps a failing part (a stage panel, a lazy chunk that did not load) from taking the whole page
 * down; the route-level error element handles everything else.
 */
export class ErrorBoundary extends Component<ErrorBoundaryProps, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { failed: false, resetKey: this.props.resetKey };

  static getDerivedStateFromError(): Partial<ErrorBoundaryState> {
    return { failed: true };
  }

  static getDerivedStateFromProps(props: ErrorBoundaryProps, state: ErrorBoundaryState): Partial<ErrorBoundaryState> | null {
    return props.resetKey === state.resetKey ? null : { failed: false, resetKey: props.resetKey };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    logError('boundary', { error, componentStack: info.componentStack });
  }

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
