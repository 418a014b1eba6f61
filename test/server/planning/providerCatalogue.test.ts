import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { loadProviders, providersDir, readProviders, writeCheckedProviders } from '../../../src/server/agents/catalogue/providers';
import { parseTemplate, renderTemplate, TemplateError } from '../../../src/server/agents/catalogue/template';

/** The provider files as shipped, as the build checks them, and the templates their commands are written in. */

describe('provider files', () => {
  it('are checked once by the build and read back the same from its copy', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'checked-providers-'));
    try {
      const source = readProviders(providersDir());
      expect(writeCheckedProviders(out)).toBe(Object.keys(source.providers).length);
      expect(loadProviders(out)).toEqual(source);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('list their sizes from small to large (the composer takes the first that fits)', () => {
    const { providers } = readProviders(providersDir());
    for (const p of Object.values(providers)) {
      const memory = p.sizes.map((s) => s.memoryGb);
      expect(memory).toEqual([...memory].sort((a, b) => a - b));
    }
  });
});

describe('templates', () => {
  // Text without braces is itself, whatever the scope.
  const plain = fc.string().filter((s) => !s.includes('{') && !s.includes('}'));

  it('leave text without tags as it is', () => {
    fc.assert(fc.property(plain, (text) => renderTemplate(text, { name: 'x' }) === text));
  });

  it('render a list joined by a separator as join() does, and nothing for an empty list', () => {
    fc.assert(
      fc.property(fc.array(plain.filter((s) => s.length > 0)), plain.filter((s) => s.length > 0), (items, separator) => {
        const template = `{{#items}}{{^-first}}${separator}{{/-first}}{{value}}{{/items}}`;
        return renderTemplate(template, { items: items.map((value) => ({ value })) }) === items.join(separator);
      }),
    );
  });

  it('resolve a name from the enclosing item inside a nested section, and an inverted section when the value is false', () => {
    const scope = { ports: [{ port: 80 }, { port: 443 }], sources: [{ source: '0.0.0.0/0' }], open: false };
    expect(renderTemplate('{{#ports}}{{#sources}}[{{port}} {{source}}]{{/sources}}{{/ports}}{{^open}} closed{{/open}}', scope)).toBe('[80 0.0.0.0/0][443 0.0.0.0/0] closed');
  });

  it('refuse an unbalanced template, naming the tag', () => {
    expect(() => parseTemplate('{{#a}}x')).toThrow(new TemplateError('{{#a}} is not closed'));
    expect(() => parseTemplate('{{#a}}x{{/b}}')).toThrow(new TemplateError('{{/b}} closes {{#a}}'));
    expect(() => parseTemplate('x {{a')).toThrow(TemplateError);
    expect(() => parseTemplate('{{a b}}')).toThrow(new TemplateError('{{a b}} does not name a value'));
  });
});
