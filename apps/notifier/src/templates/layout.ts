/**
 * The building blocks of an e-mail body. Templates describe their content as blocks; `layout`
 * renders the blocks twice, as plain text and as HTML, and escapes every piece of text on the way
 * into HTML, so no template can forget to escape a variable.
 */
export type Block =
  | { kind: 'greeting'; name: string }
  | { kind: 'paragraph'; text: string }
  /** label/value rows, e.g. e-mail and temporary password */
  | { kind: 'details'; rows: [label: string, value: string][] }
  /** a call to action; the URL was validated as absolute http(s) by the contract */
  | { kind: 'action'; label: string; url: string }
  /** a quoted note written by a person (admin reason) */
  | { kind: 'quote'; text: string };

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** Escaped, with line breaks kept (notes typed by people have them). */
function htmlText(value: string): string {
  return escapeHtml(value).replace(/\r?\n/g, '<br>\n');
}

/** A header value on one line: variables must not be able to add header lines. */
export function oneLine(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
}

const SIGNATURE = 'The Pasar team';

function blockText(block: Block): string {
  switch (block.kind) {
    case 'greeting':
      return `Hi ${block.name},`;
    case 'paragraph':
      return block.text;
    case 'details':
      return block.rows.map(([label, value]) => `${label}: ${value}`).join('\n');
    case 'action':
      return `${block.label}: ${block.url}`;
    case 'quote':
      return block.text
        .split(/\r?\n/)
        .map((line) => `> ${line}`)
        .join('\n');
  }
}

function blockHtml(block: Block): string {
  switch (block.kind) {
    case 'greeting':
      return `<p>Hi ${escapeHtml(block.name)},</p>`;
    case 'paragraph':
      return `<p>${htmlText(block.text)}</p>`;
    case 'details':
      return [
        '<table role="presentation" cellpadding="4" cellspacing="0">',
        ...block.rows.map(
          ([label, value]) => `<tr><td style="color:#555">${escapeHtml(label)}</td><td><strong>${escapeHtml(value)}</strong></td></tr>`,
        ),
        '</table>',
      ].join('\n');
    case 'action':
      return (
        `<p><a href="${escapeHtml(block.url)}" style="display:inline-block;padding:10px 18px;background:#0f766e;` +
        `color:#ffffff;text-decoration:none;border-radius:4px">${escapeHtml(block.label)}</a></p>\n` +
        `<p style="color:#555;font-size:13px">Or open this link: ${escapeHtml(block.url)}</p>`
      );
    case 'quote':
      return `<blockquote style="margin:0 0 16px;padding:8px 12px;border-left:3px solid #ccc;color:#333">${htmlText(block.text)}</blockquote>`;
  }
}

/** Renders subject and body blocks into the text and HTML parts of one e-mail. */
export function layout(subject: string, blocks: Block[]): RenderedEmail {
  const cleanSubject = oneLine(subject);
  const text = [...blocks.map(blockText), SIGNATURE].join('\n\n') + '\n';
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(cleanSubject)}</title></head>`,
    '<body style="font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#111">',
    '<div style="max-width:560px;margin:0 auto;padding:24px">',
    ...blocks.map(blockHtml),
    `<p>${escapeHtml(SIGNATURE)}</p>`,
    '</div>',
    '</body>',
    '</html>',
  ].join('\n');
  return { subject: cleanSubject, text, html };
}
