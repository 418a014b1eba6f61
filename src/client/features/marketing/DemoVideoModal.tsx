import { useCallback, useEffect, useRef, type ReactElement } from 'react';
import { createPortal } from 'react-dom';
import styled from 'styled-components';
import { LANDING_PAGE, LANDING_TEXT, type DemoVideo } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { track } from '../../common/analytics';

/**
 * Ours: a demo without its recording yet plays the product trailer, and the card and player say so
 * (the cards used to show '24:16' or '1:00:00' and play the same short trailer).
 */
export const NO_RECORDING = {
  badge: 'Trailer',
  note: 'The recording of this job is not published yet; the player shows our short product trailer.',
  dialogTitle: (title: string): string => `Product trailer (no recording of ${title} yet)`,
} as const;

/** The thumbnail button's name: what will really play. */
export function demoPlayLabel(video: DemoVideo): string {
  return video.videoId ? LANDING_TEXT.playVideo(video.title) : `Play the product trailer (no recording of ${video.title} yet)`;
}

/**
 * The 'Watch Us Deploy' player: an embedded autoplay player of the video host when the demo has a
 * video id, else our own trailer. It closes by the backdrop or the close button (part 2 section 2),
 * and by Escape as every dialog does; clicks inside the content do not close it.
 */
export function DemoVideoModal({ video, onClose }: { video: DemoVideo; onClose: () => void }): ReactElement {
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    track('demo_video_play', { id: video.id });
    // Focus goes back to the thumbnail that opened the player when it closes.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeRef.current?.focus();
    return () => opener?.focus();
  }, [video.id]);
  const title = video.videoId ? video.title : NO_RECORDING.dialogTitle(video.title);
  const close = useCallback((): void => {
    track('demo_video_close', { id: video.id });
    onClose();
  }, [video.id, onClose]);
  // On the document: the player (a video element) takes focus and keys while it plays.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') close();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [close]);
  return createPortal(
    <Backdrop data-testid="video-backdrop" onClick={(e) => e.target === e.currentTarget && close()}>
      <Content role="dialog" aria-modal="true" aria-label={title}>
        <Bar>
          <strong>{title}</strong>
          <Button ref={closeRef} $variant="ghost" $size="sm" aria-label={LANDING_TEXT.closeVideo} onClick={close}>
            ✕
          </Button>
        </Bar>
        <Frame>
          {video.videoId ? (
            <iframe
              title={video.title}
              src={`https://www.youtube-nocookie.com/embed/${encodeURIComponent(video.videoId)}?autoplay=1`}
              allow="autoplay; encrypted-media; picture-in-picture"
              allowFullScreen
            />
          ) : (
            <video title={title} autoPlay controls muted playsInline poster={LANDING_PAGE.requirementsScreenshot}>
              <source src={LANDING_PAGE.trailer.webm} type="video/webm" />
              <source src={LANDING_PAGE.trailer.mp4} type="video/mp4" />
            </video>
          )}
        </Frame>
      </Content>
    </Backdrop>,
    document.body,
  );
}

const Backdrop = styled.div`
  position: fixed;
  inset: 0;
  z-index: 1000;
  display: flex;
  align-items: center;
  justify-content: center;
  padding: ${({ theme }) => theme.space(6)};
  background: ${({ theme }) => theme.colors.overlay};
`;

const Content = styled.div`
  width: min(960px, 100%);
  border-radius: ${({ theme }) => theme.radii.lg};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
  box-shadow: ${({ theme }) => theme.shadows.raised};
  overflow: hidden;
`;

const Bar = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(4)}`};
`;

const Frame = styled.div`
  position: relative;
  aspect-ratio: 16 / 9;
  background: ${({ theme }) => theme.colors.background};
  iframe, video { position: absolute; inset: 0; width: 100%; height: 100%; border: 0; }
`;
