/** Documentation generation and the project home's documentation views (part 2 sections 2, 4, 5, 8). */

export const DOCUMENTATION = {
  /** Fixed text of the documentation generation request. */
  generatePrompt: 'Generate detailed documentation of the current infrastructure',
  /** Documentation equal to one of these (or empty) counts as missing. */
  documentationPlaceholders: ['No documentation has been created yet.', 'No documentation found.'],
  /** A quick start equal to one of these (or empty) counts as missing. */
  quickstartPlaceholders: ['No quickstart guide has been created yet.'],
  /** Where a writer wants the server's live validation results in its texts (else they go at the end). */
  resultsMarker: '<!-- validation-results -->',
  resultsHeading: 'Validation results',
  /** Where a writer wants what the server read back (its facts and the files as deployed); else after the results. */
  serverMarker: '<!-- server-as-deployed -->',
  serverHeading: 'The server as deployed',
  /** Protocols a rendered documentation link may use; relative links are allowed too. */
  safeLinkProtocols: ['http', 'https', 'irc', 'ircs', 'mailto', 'xmpp'],
} as const;

/** True when a documentation text is empty or one of its placeholders. */
export const isDocumentationMissing = (text: string | null | undefined): boolean =>
  !text?.trim() || (DOCUMENTATION.documentationPlaceholders as readonly string[]).includes(text.trim());

/** True when a quick start text is empty or its placeholder. */
export const isQuickstartMissing = (text: string | null | undefined): boolean =>
  !text?.trim() || (DOCUMENTATION.quickstartPlaceholders as readonly string[]).includes(text.trim());

export const PROJECT_HOME_NAV = {
  devopsHelper: 'DevOps Helper Chat',
  quickStart: 'Quick Start Guide',
  fullDocumentation: 'Full Documentation',
  environmentGuide: 'Environment Guide',
  configurationData: 'Configuration Data',
} as const;

export const DOCUMENTATION_TEXT = {
  beforeYouBegin: 'Before You Begin',
  noQuickstart: 'No quick start guide available for this project.',
  noDocumentation: 'No documentation available for this project.',
  rawConfigurationData: 'Raw Configuration Data',
  keyColumn: 'Key',
  valueColumn: 'Value',
  noConfigurationData: 'No configuration data available.',
} as const;

export const DOCUMENTATION_ERRORS = {
  loadOrGenerate: 'Failed to load/generate documentation. Please try again.',
  load: 'Failed to load documentation',
} as const;
