import { screen, within } from '@testing-library/react';
import { Markdown } from '../../../src/client/common/chat/markdown/Markdown';
import { renderWithProviders } from '../utils/renderWithProviders';

describe('Markdown (GitHub-flavoured, as plans and models write it)', () => {
  it('draws a pipe table as a table, not as the pipes themselves', async () => {
    renderWithProviders(
      <Markdown>
        {['## Services', '', '| Service | Image | Healthcheck |', '|---|---|---|', '| n8n | `n8nio/n8n:1.64.3` | yes |', '| caddy | `caddy:2.8.4-alpine` | yes |'].join('\n')}
      </Markdown>,
    );
    const table = await screen.findByRole('table');
    expect(within(table).getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['Service', 'Image', 'Healthcheck']);
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(within(table).getByRole('cell', { name: 'n8nio/n8n:1.64.3' })).toBeInTheDocument();
    expect(screen.queryByText(/\|---/)).not.toBeInTheDocument();
  });

  it('keeps the link rule for autolinked addresses and strikes through ~~text~~', async () => {
    renderWithProviders(<Markdown>{'Open https://automations.example.com/ now. ~~old~~ new'}</Markdown>);
    const link = await screen.findByRole('link', { name: 'https://automations.example.com/' });
    expect(link).toHaveAttribute('href', 'https://automations.example.com/');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByText('old').tagName).toBe('DEL');
  });

  it('shows a mermaid source that does not parse as its text, says so and logs why', async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    renderWithProviders(<Markdown>{['```mermaid', 'not a diagram', '```'].join('\n')}</Markdown>);
    const diagram = await screen.findByRole('figure', { name: 'Diagram' });
    expect(await within(diagram).findByText('The diagram could not be drawn; its source is shown.')).toBeInTheDocument();
    expect(diagram).toHaveAttribute('aria-busy', 'false');
    expect(within(diagram).getByText('not a diagram').closest('pre')).not.toBeNull();
    expect(diagram.querySelector('svg')).toBeNull();
    expect(logged).toHaveBeenCalledWith('[mermaid]', expect.objectContaining({ message: expect.stringMatching(/Parse error/) }));
  });

  it('shows an image on another host as a link instead of fetching it; own images still show', async () => {
    renderWithProviders(
      <Markdown>{'![tracker](https://evil.example/pixel.png?who=me) ![](//cdn.example/x.png) ![logo](/images/logo.png)'}</Markdown>,
    );
    const link = await screen.findByRole('link', { name: 'tracker (image: https://evil.example/pixel.png?who=me)' });
    expect(link).toHaveAttribute('href', 'https://evil.example/pixel.png?who=me');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByRole('link', { name: 'Image: //cdn.example/x.png' })).toBeInTheDocument();
    const images = screen.getAllByRole('img');
    expect(images.map((img) => img.getAttribute('src'))).toEqual(['/images/logo.png']);
  });
});
