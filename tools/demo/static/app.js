// mmidc demo page: pick or upload a pair, POST it to /api/caption, show results.
'use strict';

const $ = (id) => document.getElementById(id);
let exampleIndex = null;  // the picked example, or null for uploads
let examples = [];

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').className = isError ? 'error' : '';
}

function preview(fileInput, img) {
  fileInput.addEventListener('change', () => {
    exampleIndex = null;
    document.querySelectorAll('#examples button').forEach((b) => b.classList.remove('active'));
    const file = fileInput.files[0];
    if (file) img.src = URL.createObjectURL(file);
  });
}

function pickExample(index) {
  exampleIndex = index;
  $('before-preview').src = `/api/examples/${index}/before`;
  $('after-preview').src = `/api/examples/${index}/after`;
  $('before-file').value = '';
  $('after-file').value = '';
  document.querySelectorAll('#examples button').forEach((b) =>
    b.classList.toggle('active', Number(b.dataset.index) === index));
}

function showResult(result) {
  $('results').hidden = false;
  $('caption').textContent = result.caption;
  $('caption').dataset.state = 'done';
  $('score').textContent = `mean log-probability per token: ${result.score.toFixed(3)}`;
  $('attention').src = result.attention_png;
  const refs = exampleIndex !== null ? examples[exampleIndex].captions : [];
  $('references').hidden = refs.length === 0;
  $('references').textContent = refs.length ? `references: ${refs.join(' | ')}` : '';
  $('retrieval-box').hidden = result.retrieved.length === 0;
  $('retrieved').replaceChildren(...result.retrieved.map((r) => {
    const li = document.createElement('li');
    li.textContent = `${r.caption} (${r.score.toFixed(3)})`;
    return li;
  }));
}

async function caption(event) {
  if (event) event.preventDefault();
  const form = new FormData();
  form.append('beam', $('beam').value || '1');
  if (exampleIndex !== null) {
    form.append('example', String(exampleIndex));
  } else {
    const before = $('before-file').files[0];
    const after = $('after-file').files[0];
    if (!before || !after) {
      setStatus('choose a before and an after image, or pick an example', true);
      return;
    }
    form.append('before', before);
    form.append('after', after);
  }
  setStatus('captioning…');
  $('run').disabled = true;
  try {
    const response = await fetch('/api/caption', { method: 'POST', body: form });
    const body = await response.json();
    if (!response.ok) {
      const detail = typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail);
      setStatus(`error ${response.status}: ${detail}`, true);
      $('caption').dataset.state = 'error';
      return;
    }
    showResult(body);
    setStatus('');
  } catch (err) {
    setStatus(`request failed: ${err}`, true);
  } finally {
    $('run').disabled = false;
  }
}

async function init() {
  preview($('before-file'), $('before-preview'));
  preview($('after-file'), $('after-preview'));
  $('pair-form').addEventListener('submit', caption);
  const info = await (await fetch('/api/info')).json();
  examples = info.examples;
  $('examples-box').hidden = examples.length === 0;
  $('examples').replaceChildren(...examples.map((e) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.index = e.index;
    button.title = e.pair_id;
    const img = document.createElement('img');
    img.src = `/api/examples/${e.index}/after`;
    img.alt = `example ${e.pair_id}`;
    button.append(img);
    button.addEventListener('click', () => pickExample(e.index));
    return button;
  }));
  const params = new URLSearchParams(window.location.search);
  if (params.has('beam')) $('beam').value = params.get('beam');
  if (params.has('example')) {
    const index = Number(params.get('example'));
    if (index >= 0 && index < examples.length) {
      pickExample(index);
      await caption();
    } else {
      setStatus(`no example ${params.get('example')}`, true);
    }
  }
}

init();
