import { holdEarlyClicks } from '../../../src/client/app/prerenderedPage';

const PAGE = '<header><a href="/pricing">Pricing</a><button type="button">Get Started</button></header><main><p>text</p></main>';

describe('clicks on the prerendered landing page before the app runs', () => {
  it('are held, then given to the same element of the page the app rendered in its place', () => {
    const container = document.createElement('div');
    container.innerHTML = PAGE;
    document.body.append(container);
    const replay = holdEarlyClicks(container);

    const early = new MouseEvent('click', { bubbles: true, cancelable: true });
    container.querySelector('button')!.dispatchEvent(early);
    expect(early.defaultPrevented).toBe(true);
    const link = new MouseEvent('click', { bubbles: true, cancelable: true });
    container.querySelector('a')!.dispatchEvent(link);
    // A link's navigation waits too: the app's router takes it.
    expect(link.defaultPrevented).toBe(true);

    // The app replaces the page with the same one, whose elements have handlers.
    container.innerHTML = PAGE;
    const clicked: string[] = [];
    container.querySelector('button')!.addEventListener('click', () => clicked.push('Get Started'));
    container.querySelector('a')!.addEventListener('click', (event) => {
      event.preventDefault();
      clicked.push('Pricing');
    });
    replay();
    expect(clicked).toEqual(['Get Started', 'Pricing']);

    // After the replay, clicks are the app's own.
    const later = new MouseEvent('click', { bubbles: true, cancelable: true });
    container.querySelector('button')!.dispatchEvent(later);
    expect(clicked).toEqual(['Get Started', 'Pricing', 'Get Started']);
    container.remove();
  });

  it('drops a click whose place the new page does not have', () => {
    const container = document.createElement('div');
    container.innerHTML = PAGE;
    const replay = holdEarlyClicks(container);
    container.querySelector('p')!.click();
    container.innerHTML = '<header></header>';
    expect(() => replay()).not.toThrow();
  });
});
