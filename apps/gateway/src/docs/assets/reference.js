/* global document, window, fetch */
// Pasar API reference: renders the gateway's OpenAPI document and lets you call the API from the
// page (same origin, so the session cookie goes along). No external assets: it works offline.
'use strict';

(function main() {
  var root = document.getElementById('app');
  var specUrl = root.getAttribute('data-spec-url');
  var methods = ['get', 'post', 'put', 'patch', 'delete'];

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === 'text') node.textContent = attrs[key];
      else if (key === 'onclick' || key === 'oninput') node[key] = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }

  function resolve(spec, schema) {
    var seen = 0;
    while (schema && schema.$ref && seen < 20) {
      var name = schema.$ref.replace('#/components/schemas/', '');
      schema = (spec.components && spec.components.schemas && spec.components.schemas[name]) || {};
      seen += 1;
    }
    return schema || {};
  }

  function typeLabel(spec, schema) {
    var s = resolve(spec, schema);
    if (schema && schema.$ref) return schema.$ref.replace('#/components/schemas/', '');
    if (s.enum) return 'enum: ' + s.enum.join(' | ');
    if (s.const !== undefined) return 'const ' + JSON.stringify(s.const);
    if (s.anyOf || s.oneOf) return (s.anyOf || s.oneOf).map(function (x) { return typeLabel(spec, x); }).join(' | ');
    if (s.type === 'array') return 'array of ' + typeLabel(spec, s.items);
    var t = Array.isArray(s.type) ? s.type.join(' | ') : s.type || 'any';
    if (s.format) t += ' (' + s.format + ')';
    if (s.pattern) t += ' /' + s.pattern + '/';
    if (s.minLength !== undefined || s.maxLength !== undefined) t += ' [' + (s.minLength || 0) + '..' + (s.maxLength === undefined ? '' : s.maxLength) + ']';
    return t;
  }

  function renderSchema(spec, schema, depth) {
    var s = resolve(spec, schema);
    var box = el('div', { class: depth ? 'prop' : 'schema' });
    if (depth > 6) return box;
    var variants = s.allOf || s.anyOf || s.oneOf;
    if (variants) {
      variants.forEach(function (variant) { box.appendChild(renderSchema(spec, variant, depth + 1)); });
      return box;
    }
    if (s.type === 'array') {
      box.appendChild(el('div', { class: 'type', text: 'array of:' }));
      box.appendChild(renderSchema(spec, s.items, depth + 1));
      return box;
    }
    if (s.type === 'object' || s.properties) {
      var required = s.required || [];
      Object.keys(s.properties || {}).forEach(function (name) {
        var child = s.properties[name];
        var line = el('div', {}, [
          el('span', { class: 'name', text: name }),
          ': ',
          el('span', { class: 'type', text: typeLabel(spec, child) }),
          required.indexOf(name) >= 0 ? el('span', { class: 'req', text: ' required' }) : null,
        ]);
        box.appendChild(line);
        var inner = resolve(spec, child);
        if (inner.properties || (inner.type === 'array' && resolve(spec, inner.items).properties)) box.appendChild(renderSchema(spec, child, depth + 1));
      });
      return box;
    }
    box.appendChild(el('div', { class: 'type', text: typeLabel(spec, schema) }));
    return box;
  }

  function example(spec, schema, depth) {
    var s = resolve(spec, schema);
    if (depth > 6) return null;
    if (s.example !== undefined) return s.example;
    if (s.enum) return s.enum[0];
    if (s.const !== undefined) return s.const;
    var variants = s.allOf || s.anyOf || s.oneOf;
    if (s.allOf) return s.allOf.reduce(function (acc, v) { return Object.assign(acc, example(spec, v, depth + 1)); }, {});
    if (variants) return example(spec, variants[0], depth + 1);
    var type = Array.isArray(s.type) ? s.type[0] : s.type;
    if (type === 'object' || s.properties) {
      var out = {};
      Object.keys(s.properties || {}).forEach(function (name) { out[name] = example(spec, s.properties[name], depth + 1); });
      return out;
    }
    if (type === 'array') return [example(spec, s.items, depth + 1)];
    if (type === 'integer' || type === 'number') return s.minimum || 0;
    if (type === 'boolean') return false;
    if (s.format === 'email') return 'user@example.com';
    if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
    if (s.format === 'date-time') return new Date().toISOString();
    return s.minLength ? 'x'.repeat(s.minLength) : 'string';
  }

  function tryPanel(spec, baseUrl, path, method, op) {
    var params = (op.parameters || []).map(function (p) { return p; });
    var inputs = {};
    var panel = el('div', { class: 'try' }, [el('h4', { text: 'Try it' })]);
    params.forEach(function (p) {
      var input = el('input', { placeholder: p.in + (p.required ? ', required' : '') });
      inputs[p.name] = { param: p, input: input };
      panel.appendChild(el('label', { text: p.name + ' (' + p.in + ')' }));
      panel.appendChild(input);
    });
    var body = null;
    var content = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
    if (content) {
      body = el('textarea', {});
      body.value = JSON.stringify(example(spec, content.schema, 0), null, 2);
      panel.appendChild(el('label', { text: 'JSON body' }));
      panel.appendChild(body);
    }
    var output = el('pre', { text: 'No request sent yet.' });
    panel.appendChild(el('button', {
      text: 'Send ' + method.toUpperCase(),
      onclick: function () {
        var url = path;
        var query = [];
        Object.keys(inputs).forEach(function (name) {
          var value = inputs[name].input.value;
          if (inputs[name].param.in === 'path') url = url.replace('{' + name + '}', encodeURIComponent(value));
          else if (value) query.push(encodeURIComponent(name) + '=' + encodeURIComponent(value));
        });
        var init = { method: method.toUpperCase(), credentials: 'include', headers: {} };
        if (body) {
          init.headers['content-type'] = 'application/json';
          init.body = body.value;
        }
        output.textContent = 'Sending...';
        fetch(baseUrl + url + (query.length ? '?' + query.join('&') : ''), init)
          .then(function (res) {
            return res.text().then(function (text) {
              var shown = text;
              try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch { /* shown as text */ }
              output.textContent = res.status + ' ' + res.statusText + '\n\n' + shown;
            });
          })
          .catch(function (err) { output.textContent = 'Request failed: ' + err; });
      },
    }));
    panel.appendChild(output);
    return panel;
  }

  function render(spec) {
    var baseUrl = (spec.servers && spec.servers[0] && spec.servers[0].url) || '';
    var nav = el('nav', {}, [
      el('h1', { text: spec.info.title }),
      el('div', { class: 'version', text: 'version ' + spec.info.version + ' · base ' + baseUrl }),
    ]);
    var filter = el('input', { placeholder: 'Filter endpoints' });
    nav.appendChild(filter);
    var main = el('main', {}, [spec.info.description ? el('p', { class: 'summary', text: spec.info.description }) : null]);
    var byTag = {};
    var links = [];
    Object.keys(spec.paths || {}).forEach(function (path) {
      methods.forEach(function (method) {
        var op = spec.paths[path][method];
        if (!op) return;
        var tag = (op.tags && op.tags[0]) || 'Other';
        (byTag[tag] = byTag[tag] || []).push({ path: path, method: method, op: op });
      });
    });
    Object.keys(byTag).sort().forEach(function (tag) {
      nav.appendChild(el('h2', { text: tag }));
      byTag[tag].forEach(function (entry, i) {
        var id = (tag + '-' + entry.method + '-' + i).replace(/[^A-Za-z0-9-]/g, '-');
        var link = el('a', { href: '#' + id }, [el('span', { class: 'method ' + entry.method, text: entry.method.toUpperCase() }), entry.path]);
        links.push({ link: link, text: (entry.method + ' ' + entry.path + ' ' + (entry.op.summary || '')).toLowerCase() });
        nav.appendChild(link);
        var op = entry.op;
        var section = el('section', { class: 'op', id: id }, [
          el('h3', {}, [el('span', { class: 'method ' + entry.method, text: entry.method.toUpperCase() }), baseUrl + entry.path]),
          el('p', { class: 'summary', text: op.summary || '' }),
          el('div', { class: 'access', text: op.security && op.security.length ? 'Needs the session cookie.' : 'Public: no session needed.' }),
        ]);
        if (op.parameters && op.parameters.length) {
          section.appendChild(el('h4', { text: 'Parameters' }));
          var list = el('div', { class: 'schema' });
          op.parameters.forEach(function (p) {
            list.appendChild(el('div', {}, [el('span', { class: 'name', text: p.name }), ' (' + p.in + '): ', el('span', { class: 'type', text: typeLabel(spec, p.schema) }), p.required ? el('span', { class: 'req', text: ' required' }) : null]));
          });
          section.appendChild(list);
        }
        var content = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
        if (content) {
          section.appendChild(el('h4', { text: 'Request body (application/json)' }));
          section.appendChild(renderSchema(spec, content.schema, 0));
        }
        section.appendChild(el('h4', { text: 'Responses' }));
        Object.keys(op.responses || {}).forEach(function (status) {
          var response = op.responses[status];
          section.appendChild(el('div', {}, [el('strong', { text: status }), ' ' + (response.description || '')]));
          var media = response.content && (response.content['application/json'] || response.content['application/problem+json']);
          if (media && status.charAt(0) === '2') section.appendChild(renderSchema(spec, media.schema, 0));
        });
        section.appendChild(tryPanel(spec, baseUrl, entry.path, entry.method, op));
        main.appendChild(section);
      });
    });
    filter.oninput = function () {
      var q = filter.value.toLowerCase();
      links.forEach(function (l) { l.link.style.display = l.text.indexOf(q) >= 0 ? '' : 'none'; });
    };
    root.replaceWith(nav, main);
    if (window.location.hash) {
      var target = document.getElementById(window.location.hash.slice(1));
      if (target) target.scrollIntoView();
    }
  }

  fetch(specUrl, { credentials: 'same-origin' })
    .then(function (res) { return res.json(); })
    .then(render)
    .catch(function (err) {
      root.textContent = '';
      root.appendChild(el('p', { class: 'error', text: 'Could not load the API description from ' + specUrl + ': ' + err }));
    });
})();
