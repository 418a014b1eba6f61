import { useEffect, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import { DEMO_VIDEOS, LANDING, LANDING_PAGE, LANDING_TEXT, PRODUCT_NAME, type DemoVideo } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { track } from '../../common/analytics';
import { demoPlayLabel, DemoVideoModal, NO_RECORDING } from './DemoVideoModal';
import { MarketingFooter } from './MarketingFooter';
import { MarketingHeader } from './MarketingHeader';
import { startLogin } from './startLogin';

const TRAILER_ID = 'trailer';
const REPOSITORY_ID = 'connect-repository';

const scrollTo = (id: string): void => document.getElementById(id)?.scrollIntoView({ behavior: 'smooth', block: 'start' });

/** The landing page at / (part 2 section 2): hero and trailer, the feature sections, the demos, the call to action. */
export function LandingPage(): ReactElement {
  useDocumentTitle(`${PRODUCT_NAME} - ${LANDING.tagline}`);
  const [playing, setPlaying] = useState<DemoVideo | null>(null);

  // The documents' 1-second on-load timer; its action is not shown, so it records that the page stayed open.
  useEffect(() => {
    const timer = setTimeout(() => track('landing_engaged'), LANDING_PAGE.loadTimerMs);
    return () => clearTimeout(timer);
  }, []);

  return (
    <>
      <MarketingHeader />
      <main>
        <Hero>
          <Eyebrow>{LANDING_PAGE.researchPreview}</Eyebrow>
          <Quote>
            <p>{LANDING_TEXT.quote}</p>
            <footer>{LANDING_TEXT.quoteAttribution}</footer>
          </Quote>
          <h1>{PRODUCT_NAME}</h1>
          <Tagline>{LANDING.tagline}</Tagline>
          <ScrollArrow type="button" aria-label={LANDING_TEXT.scrollToTrailer} onClick={() => scrollTo(TRAILER_ID)}>
            ↓
          </ScrollArrow>
        </Hero>

        <Trailer id={TRAILER_ID} onMouseEnter={() => track('trailer_hover')}>
          <video aria-label={LANDING_TEXT.trailerLabel} autoPlay loop muted playsInline poster={LANDING_PAGE.requirementsScreenshot}>
            <source src={LANDING_PAGE.trailer.webm} type="video/webm" />
            <source src={LANDING_PAGE.trailer.mp4} type="video/mp4" />
            <img src={LANDING_PAGE.trailer.gifFallback} alt={LANDING_TEXT.trailerFallbackAlt} loading="lazy" />
          </video>
        </Trailer>

        <Feature aria-labelledby="no-vibe-coding">
          <div>
            <h2 id="no-vibe-coding">{LANDING_PAGE.sections.noVibeCoding}</h2>
            <p>{LANDING_TEXT.noVibeCodingText}</p>
            <a
              href={`#${REPOSITORY_ID}`}
              onClick={(e) => {
                e.preventDefault();
                scrollTo(REPOSITORY_ID);
              }}
            >
              {LANDING_PAGE.sections.seeMore}
            </a>
          </div>
          <Shot>
            <img src={LANDING_PAGE.requirementsScreenshot} alt={LANDING_TEXT.requirementsScreenshotAlt} loading="lazy" width={1280} height={800} />
            <Overlay>
              <strong>{LANDING_PAGE.sections.approvedOverlayTitle}</strong>
              <span>{LANDING_PAGE.sections.approvedOverlaySubtitle}</span>
            </Overlay>
          </Shot>
        </Feature>

        <Section aria-labelledby="no-invisible-efforts">
          <h2 id="no-invisible-efforts">{LANDING_PAGE.sections.noInvisibleEfforts}</h2>
          <p>{LANDING_TEXT.noInvisibleEffortsText}</p>
        </Section>

        <Section id={REPOSITORY_ID} aria-labelledby="connect-repository-title">
          <h2 id="connect-repository-title">{LANDING_PAGE.sections.connectRepository}</h2>
          <p>{LANDING_TEXT.connectRepositoryText}</p>
          <Cards>
            {LANDING_PAGE.repositoryCards.map((title) => (
              <li key={title}>
                <h3>{title}</h3>
                <p>{LANDING_TEXT.repositoryCardTexts[title]}</p>
              </li>
            ))}
          </Cards>
        </Section>

        <Section aria-labelledby="watch-us-deploy">
          <h2 id="watch-us-deploy">{LANDING_PAGE.sections.watchUsDeploy}</h2>
          <p>{LANDING_TEXT.watchUsDeployText}</p>
          <Cards>
            {DEMO_VIDEOS.map((video) => (
              <li key={video.id}>
                <Thumb type="button" aria-label={demoPlayLabel(video)} onClick={() => setPlaying(video)}>
                  <img
                    src={video.videoId ? `https://i.ytimg.com/vi/${encodeURIComponent(video.videoId)}/hqdefault.jpg` : LANDING_PAGE.requirementsScreenshot}
                    alt=""
                    loading="lazy"
                  />
                  {/* The job's length shows on its recording only; without one the player shows the trailer, and says so. */}
                  <Duration>{video.videoId ? video.duration : NO_RECORDING.badge}</Duration>
                </Thumb>
                <h3>{video.title}</h3>
                <Badges>
                  <span>{video.channel}</span>
                  <span>{video.timeBadge}</span>
                  <span>{video.costBadge}</span>
                </Badges>
                <p>{video.description}</p>
                {!video.videoId && <NoRecording>{NO_RECORDING.note}</NoRecording>}
              </li>
            ))}
          </Cards>
        </Section>

        <Cta aria-labelledby="final-cta">
          <h2 id="final-cta">{LANDING_PAGE.sections.finalCallToAction}</h2>
          <p>{LANDING_TEXT.finalCallToActionText}</p>
          <Button $variant="primary" onMouseEnter={() => track('start_building_hover')} onClick={() => startLogin('final_cta')}>
            {LANDING_PAGE.sections.startBuilding}
          </Button>
        </Cta>
      </main>
      <MarketingFooter />
      {playing && <DemoVideoModal video={playing} onClose={() => setPlaying(null)} />}
    </>
  );
}

const Hero = styled.section`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${({ theme }) => theme.space(5)};
  padding: ${({ theme }) => `${theme.space(20)} ${theme.space(6)} ${theme.space(10)}`};
  text-align: center;
  h1 { font-size: ${({ theme }) => theme.fontSizes.hero}; letter-spacing: -0.02em; }
`;

const Eyebrow = styled.span`
  color: ${({ theme }) => theme.colors.primary};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  font-weight: 600;
  text-transform: uppercase;
  letter-spacing: 0.08em;
`;

const Quote = styled.blockquote`
  margin: 0;
  font-style: italic;
  p { margin: 0; font-size: ${({ theme }) => theme.fontSizes.xl}; }
  footer { color: ${({ theme }) => theme.colors.textMuted}; font-size: ${({ theme }) => theme.fontSizes.sm}; }
`;

const Tagline = styled.p`
  max-width: 640px;
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xl};
`;

const ScrollArrow = styled.button`
  width: 44px;
  height: 44px;
  border-radius: ${({ theme }) => theme.radii.round};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
  color: ${({ theme }) => theme.colors.text};
  font-size: ${({ theme }) => theme.fontSizes.xl};
  cursor: pointer;
`;

const Trailer = styled.section`
  max-width: 1040px;
  margin: 0 auto ${({ theme }) => theme.space(16)};
  padding: 0 ${({ theme }) => theme.space(6)};
  video, img { display: block; width: 100%; aspect-ratio: 16 / 10; border-radius: ${({ theme }) => theme.radii.lg}; border: 1px solid ${({ theme }) => theme.colors.border}; background: ${({ theme }) => theme.colors.surface}; }
`;

const Section = styled.section`
  max-width: 1040px;
  margin: 0 auto ${({ theme }) => theme.space(16)};
  padding: 0 ${({ theme }) => theme.space(6)};
  h2 { font-size: ${({ theme }) => theme.fontSizes.xxl}; margin-bottom: ${({ theme }) => theme.space(3)}; }
  > p { color: ${({ theme }) => theme.colors.textMuted}; max-width: 720px; }
`;

const Feature = styled(Section)`
  display: grid;
  grid-template-columns: 1fr 1.3fr;
  gap: ${({ theme }) => theme.space(8)};
  align-items: center;
  p { color: ${({ theme }) => theme.colors.textMuted}; }
  a { color: ${({ theme }) => theme.colors.focus}; }
  @media (max-width: 800px) { grid-template-columns: 1fr; }
`;

const Shot = styled.div`
  position: relative;
  img { display: block; width: 100%; height: auto; border-radius: ${({ theme }) => theme.radii.lg}; border: 1px solid ${({ theme }) => theme.colors.border}; }
`;

const Overlay = styled.div`
  position: absolute;
  right: ${({ theme }) => theme.space(4)};
  bottom: ${({ theme }) => theme.space(4)};
  display: flex;
  flex-direction: column;
  padding: ${({ theme }) => `${theme.space(3)} ${theme.space(4)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.successSurface};
  border: 1px solid ${({ theme }) => theme.colors.success};
  backdrop-filter: blur(6px);
  strong { color: ${({ theme }) => theme.colors.success}; letter-spacing: 0.06em; }
  span { font-size: ${({ theme }) => theme.fontSizes.sm}; }
`;

const Cards = styled.ul`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(260px, 1fr));
  gap: ${({ theme }) => theme.space(4)};
  margin: ${({ theme }) => theme.space(6)} 0 0;
  padding: 0;
  list-style: none;
  li { padding: ${({ theme }) => theme.space(5)}; border-radius: ${({ theme }) => theme.radii.lg}; border: 1px solid ${({ theme }) => theme.colors.border}; background: ${({ theme }) => theme.colors.surface}; }
  h3 { font-size: ${({ theme }) => theme.fontSizes.lg}; margin: ${({ theme }) => theme.space(2)} 0; }
  p { margin: 0; color: ${({ theme }) => theme.colors.textMuted}; }
`;

const Thumb = styled.button`
  position: relative;
  display: block;
  width: 100%;
  padding: 0;
  border: 0;
  background: none;
  cursor: pointer;
  img { display: block; width: 100%; aspect-ratio: 16 / 9; object-fit: cover; border-radius: ${({ theme }) => theme.radii.md}; }
`;

const NoRecording = styled.p`
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  font-style: italic;
`;

const Duration = styled.span`
  position: absolute;
  right: ${({ theme }) => theme.space(2)};
  bottom: ${({ theme }) => theme.space(2)};
  padding: 0 ${({ theme }) => theme.space(1.5)};
  border-radius: ${({ theme }) => theme.radii.sm};
  background: ${({ theme }) => theme.colors.overlay};
  color: ${({ theme }) => theme.colors.text};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;

const Badges = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(2)};
  margin-bottom: ${({ theme }) => theme.space(2)};
  span { padding: 0 ${({ theme }) => theme.space(2)}; border-radius: ${({ theme }) => theme.radii.round}; background: ${({ theme }) => theme.colors.surfaceRaised}; font-size: ${({ theme }) => theme.fontSizes.xs}; color: ${({ theme }) => theme.colors.textMuted}; }
`;

const Cta = styled(Section)`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${({ theme }) => theme.space(3)};
  text-align: center;
`;
