/**
 * The landing, pricing and legal pages (part 2 sections 1, 2, 3, 7, 9). The product name, tagline,
 * 'Get Started' / 'Pricing' labels and page titles are in foundation.ts (PRODUCT_NAME, LANDING, PAGE_TITLES).
 */
import { PRODUCT_NAME } from './foundation';

/** Public routes of the app (part 2 section 2). */
export const PUBLIC_ROUTES = {
  landing: '/',
  terms: '/terms',
  privacy: '/privacy',
  refundPolicy: '/refund-policy',
  pricing: '/pricing',
  githubSuccess: '/github-success',
} as const;

export const LANDING_PAGE = {
  researchPreview: 'Research preview',
  /** Delay of the landing page's on-load timer, in ms. */
  loadTimerMs: 1_000,
  trailer: {
    mp4: '/videos/trailer.mp4',
    webm: '/videos/trailer.webm',
    gifFallback: '/images/trailer.gif',
  },
  requirementsScreenshot: '/images/requirements.png',
  sections: {
    noVibeCoding: 'Do not vibe code your production infra',
    seeMore: 'See more',
    approvedOverlayTitle: 'REQUIREMENTS APPROVED',
    approvedOverlaySubtitle: 'Only proceeds with your approval',
    noInvisibleEfforts: 'No More Invisible Efforts',
    connectRepository: 'Connect Your GitHub Repository',
    watchUsDeploy: 'Watch Us Deploy',
    finalCallToAction: 'Ready to take control?',
    startBuilding: 'Start Building',
  },
  repositoryCards: [
    'Repository Analysis',
    'CI/CD Pipeline Creation',
    'VPS Deployment',
    'Environment Configuration',
    'Database & Services Setup',
    'Smart Configuration',
  ],
  footer: ['Terms', 'Privacy', 'Refunds', 'Pricing'],
} as const;

export type DemoVideo = {
  /** Stable key of the card. */
  id: string;
  /** External video id on the video host; the documents do not give them, so a deployment fills them in. */
  videoId: string | null;
  title: string;
  channel: string;
  /** Video length. */
  duration: string;
  timeBadge: string;
  costBadge: string;
  description: string;
};

/** The three 'Watch Us Deploy' cards. */
export const DEMO_VIDEOS: readonly DemoVideo[] = [
  {
    id: 'prometheus-grafana',
    videoId: null,
    title: 'Prometheus and Grafana stack',
    channel: PRODUCT_NAME,
    duration: '24:16',
    timeBadge: '24 min',
    costBadge: '$4.18',
    description: 'A monitoring stack with Prometheus and Grafana, deployed end to end.',
  },
  {
    id: 'elk-stack',
    videoId: null,
    title: 'ELK stack',
    channel: PRODUCT_NAME,
    duration: '45:00',
    timeBadge: '45 min',
    costBadge: '$6.60',
    description: 'Elasticsearch, Logstash and Kibana on a VPS.',
  },
  {
    id: 'ec2-n8n-ssl-domain',
    videoId: null,
    title: 'EC2 plus n8n plus SSL plus domain job',
    channel: PRODUCT_NAME,
    duration: '1:00:00',
    timeBadge: '1 hour',
    costBadge: '$12.00',
    description: 'A real freelance job: n8n on EC2 with SSL and a domain (the client paid $150).',
  },
];

export const LEGAL = {
  lastUpdated: 'Last updated: January 2024',
  minimumAge: 18,
  /** Support aims to answer within this many business days. */
  supportResponseBusinessDays: 5,
  governingLaw: 'Delaware',
  backToHome: 'Back to Home',
} as const;
