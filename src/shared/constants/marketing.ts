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

/** Texts of the landing page that the documents describe but do not quote; ours, written once here. */
export const LANDING_TEXT = {
  quote: '“AI will replace every infrastructure engineer by next quarter.”',
  quoteAttribution: '— every AI pitch deck, every quarter since 2023',
  scrollToTrailer: 'Watch the trailer',
  trailerLabel: `${PRODUCT_NAME} trailer`,
  trailerFallbackAlt: `${PRODUCT_NAME} trailer (animated)`,
  noVibeCodingText:
    'Agents gather your requirements, design the architecture and write the implementation plan with you. Nothing runs until you have read it and approved it.',
  requirementsScreenshotAlt: 'The requirements stage: a chat with the requirements agent beside the requirements document',
  noInvisibleEffortsText:
    'Every step the agents take is a command you can read, approve, reject or re-run, with its output and what it cost. The work is visible, and so is the bill.',
  connectRepositoryText: 'Point the agents at your repository and they work from what is really there.',
  repositoryCardTexts: {
    'Repository Analysis': 'Reads your stack, services and configuration from the code.',
    'CI/CD Pipeline Creation': 'Writes the workflows that build, test and ship it.',
    'VPS Deployment': 'Deploys to a plain VPS with docker-compose, TLS and backups.',
    'Environment Configuration': 'Collects the variables and secrets each environment needs.',
    'Database & Services Setup': 'Sets up databases, caches and queues with healthchecks.',
    'Smart Configuration': 'Asks only what it cannot find out, and remembers the answers.',
  } as Record<string, string>,
  watchUsDeployText: 'Real deployments, recorded start to finish, with the time they took and what they cost.',
  playVideo: (title: string): string => `Play ${title}`,
  closeVideo: 'Close video',
  finalCallToActionText: 'You decide. The agents do the typing.',
  contact: 'Contact',
} as const;

/** The accept buttons and content points of the legal pages (part 2 section 2); `email` is SUPPORT_EMAIL. */
export const LEGAL_PAGES = {
  terms: {
    title: 'Terms of Service',
    accept: 'I Accept the Terms',
    points: (email: string): string[] => [
      `${PRODUCT_NAME} is an experimental service. It is not meant for production or critical workloads; use it at your own risk.`,
      'You bear all costs of the cloud resources the agents create in your accounts.',
      'All payments are final. There are no refunds; service credits may be granted only rarely, at our discretion.',
      'Your data and prompts may be used to train AI models.',
      `You must be at least ${LEGAL.minimumAge} years old to use the service.`,
      `These terms are governed by the laws of ${LEGAL.governingLaw}. Disputes are settled by binding arbitration, and you waive the right to a class action.`,
      'If you cancel, the cancellation takes effect at the end of the current billing period.',
      'Chargebacks are prohibited; contact us instead.',
      `Support: ${email}. We aim to answer within ${LEGAL.supportResponseBusinessDays} business days.`,
    ],
  },
  privacy: {
    title: 'Privacy Policy',
    accept: 'I Understand',
    points: (email: string): string[] => [
      `${PRODUCT_NAME} is an experimental service, not meant for production or critical workloads.`,
      'We store your account, your projects, the documents the agents write and your encrypted secrets.',
      'Your data and prompts may be used to train AI models.',
      `The service is for people at least ${LEGAL.minimumAge} years old.`,
      'Analytics keep an anonymous id in your browser; no analytics event leaves it.',
      `Questions about your data: ${email}. We aim to answer within ${LEGAL.supportResponseBusinessDays} business days.`,
    ],
  },
  refundPolicy: {
    title: 'Refund Policy',
    accept: 'I Understand',
    points: (email: string): string[] => [
      'All payments are final: credits are not refunded. Service credits may be granted only rarely, at our discretion.',
      'You bear all cloud costs of what the agents create; we cannot refund a cloud provider’s bill.',
      'Cancellation takes effect at the end of the current billing period.',
      'Chargebacks are prohibited; contact us instead and we will look into it.',
      `${PRODUCT_NAME} is experimental and not meant for production or critical workloads.`,
      `Contact: ${email}. We aim to answer within ${LEGAL.supportResponseBusinessDays} business days.`,
    ],
  },
} as const;

/** The pricing page's texts beyond PRICING_TEXT (costs.ts). */
export const PRICING_PAGE = {
  title: 'Pricing',
  back: 'Back',
  intro: 'Pay for what the agents use, nothing else. Credits never expire; 1 credit = $1.',
  inputTokens: 'Input tokens',
  outputTokens: 'Output tokens',
  anyTokens: 'Any tokens',
  perMillion: (usd: number): string => `$${usd} per million tokens`,
  task: 'Task',
  time: 'Time',
  cost: 'Cost',
  legal: 'Legal',
} as const;
