import { htmlText, sanitizeHtml } from './sanitize'

/** The allow-list of remote statuses' HTML (docs/federation.md, "Incoming statuses"). */
describe('sanitizeHtml', () => {
  it('keeps paragraphs, breaks, links and mention classes, and makes links open apart', () => {
    expect(
      sanitizeHtml('<p>a<br>b <a href="https://x.example/@u" class="u-url mention evil">@u</a></p>'),
    ).toBe(
      '<p>a<br>b <a href="https://x.example/@u" rel="nofollow noopener" target="_blank" class="u-url mention">@u</a></p>',
    )
  })

  it('keeps the tag relation of hashtag links', () => {
    expect(sanitizeHtml('<a href="https://x.example/tags/t" class="mention hashtag" rel="tag">#t</a>')).toBe(
      '<a href="https://x.example/tags/t" rel="tag nofollow noopener" target="_blank" class="mention hashtag">#t</a>',
    )
  })

  it('drops scripts, styles, handlers, unsafe links and unknown elements (keeping their text)', () => {
    expect(
      sanitizeHtml(
        '<script>alert(1)</script><style>p{}</style><p onclick="x()">hi <img src=x onerror=y()><a href="javascript:alert(1)">l</a><h1>t</h1></p><!-- c -->',
      ),
    ).toBe('<p>hi <a rel="nofollow noopener" target="_blank">l</a><p><strong>t</strong></p></p>')
  })

  it("makes headings bold paragraphs, as Mastodon's UNSUPPORTED_ELEMENTS_TRANSFORMER", () => {
    expect(sanitizeHtml('<h2>Title</h2>\n\n<p>x</p>')).toBe('<p><strong>Title</strong></p>\n\n<p>x</p>')
  })

  it('escapes text, closes what is left open and ignores stray closing tags', () => {
    expect(sanitizeHtml('<p><b>1 < 2 &amp; "q"</p></i>')).toBe('<p><b>1 &lt; 2 &amp; "q"</b></p>')
    expect(sanitizeHtml('<a href="https://x.example/?a=1&amp;b=&quot;2&quot;">x')).toBe(
      '<a href="https://x.example/?a=1&amp;b=&quot;2&quot;" rel="nofollow noopener" target="_blank">x</a>',
    )
    expect(sanitizeHtml('<p>unterminated <a href="x')).toBe('<p>unterminated &lt;a href="x</p>')
  })

  it('htmlText gives the text of a summary', () => {
    expect(htmlText('<p>a &amp; b<br>c</p><script>x</script>')).toBe('a & b\nc')
  })
})
