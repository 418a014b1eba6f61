/**
 * The one theme of the app: a dark, quiet palette for an infrastructure tool. Components take colours
 * and spacing from here through styled-components' `theme`, never as literals.
 */
export const theme = {
  colors: {
    background: '#0d1117',
    surface: '#161b22',
    surfaceRaised: '#1c2230',
    surfaceHover: '#222a38',
    border: '#30363d',
    text: '#e6edf3',
    textMuted: '#8b949e',
    /** The accent as text, borders and marks: at least 4.5:1 on every surface (4.65 on surfaceHover). */
    primary: '#4493f8',
    /** The fill behind primaryText (primary buttons, the person's chat bubbles): white on it is 4.63:1, 5.32 hovered. */
    primaryFill: '#1f6feb',
    primaryFillHover: '#1a66d9',
    primaryText: '#ffffff',
    success: '#3fb950',
    successSurface: 'rgba(63, 185, 80, 0.12)',
    danger: '#f85149',
    /** The fill behind white text that warns (badges): 4.61:1. */
    dangerFill: '#da3633',
    dangerSurface: 'rgba(248, 81, 73, 0.12)',
    /** Red text on dangerSurface (an error block): 5.5:1 over the card; `danger` there is 3.7:1. */
    dangerOnSurface: '#ff7b72',
    warning: '#d29922',
    focus: '#58a6ff',
    overlay: 'rgba(1, 4, 9, 0.7)',
  },
  fonts: {
    body: "-apple-system, BlinkMacSystemFont, 'Segoe UI', 'Noto Sans', Helvetica, Arial, sans-serif",
    mono: "ui-monospace, SFMono-Regular, 'SF Mono', Menlo, Consolas, 'Liberation Mono', monospace",
  },
  fontSizes: { xs: '12px', sm: '13px', md: '14px', lg: '16px', xl: '20px', xxl: '28px', hero: '44px' },
  /** Spacing scale in px: space(1) = 4px. */
  space: (n: number): string => `${n * 4}px`,
  radii: { sm: '4px', md: '6px', lg: '10px', round: '999px' },
  shadows: { raised: '0 8px 24px rgba(1, 4, 9, 0.5)' },
  sidebarWidth: '300px',
} as const;

export type AppTheme = typeof theme;
