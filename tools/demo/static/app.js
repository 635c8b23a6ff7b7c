// mmidc demo page: pick or upload a pair, POST it to /api/caption, show results.
'use strict';

const $ = (id) => document.getElementById(id);
let exampleIndex = null;  // the picked example, or null for uploads
let examples = [];

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').className = isError ? 'error' : '';
}

// An image slot shows its picture, or a placeholder text while it has none
// (or the browser cannot show it): never a broken-image icon.
function showImage(side, src) {
  const img = $(`${side}-preview`);
  const placeholder = $(`${side}-placeholder`);
  img.onload = () => { img.hidden = false; placeholder.hidden = true; };
  img.onerror = () => {
    img.hidden = true;
    placeholder.hidden = false;
    placeholder.textContent = `the browser cannot show this ${side} image (the server may still read it)`;
  };
  img.src = src;
}

function preview(side) {
  const fileInput = $(`${side}-file`);
  fileInput.addEventListener('change', () => {
    exampleIndex = null;
    document.querySelectorAll('#examples button').forEach((b) => b.classList.remove('active'));
    const file = fileInput.files[0];
    if (file) showImage(side, URL.createObjectURL(file));
  });
}

function pickExample(index) {
  exampleIndex = index;
  showImage('before', `/api/examples/${index}/before`);
  showImage('after', `/api/examples/${index}/after`);
  $('before-file').value = '';
  $('after-file').value = '';
  document.querySelectorAll('#examples button').forEach((b) =>
    b.classList.toggle('active', Number(b.dataset.index) === index));
}

function showResult(result) {
  $('results').hidden = false;
  $('caption').textContent = result.caption;
  $('caption').dataset.state = 'done';
  $('score').textContent = `score ${result.score.toFixed(3)} (mean log-probability per word)`;
  $('attention').src = result.attention_png;
  const refs = exampleIndex !== null ? examples[exampleIndex].captions : [];
  $('references').hidden = refs.length === 0;
  $('references').textContent = refs.length ? `references: ${refs.join(' | ')}` : '';
  $('retrieval-box').hidden = result.retrieved.length === 0;
  $('retrieved').replaceChildren(...result.retrieved.map((r) => {
    const li = document.createElement('li');
    li.textContent = `${r.caption} (cosine ${r.score.toFixed(3)})`;
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
  preview('before');
  preview('after');
  $('pair-form').addEventListener('submit', caption);
  let info;
  try {
    info = await (await fetch('/api/info')).json();
  } catch (err) {
    setStatus(`cannot reach the demo server: ${err}`, true);
    return;
  }
  if (info.model) $('model-name').textContent = ` with ${info.model}`;
  examples = info.examples;
  $('examples').replaceChildren(...examples.map((e) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.index = e.index;
    button.title = `example ${e.pair_id}`;
    const img = document.createElement('img');
    img.src = `/api/examples/${e.index}/after`;
    img.alt = '';  // the label says what it is
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = e.pair_id;
    button.append(img, label);
    button.addEventListener('click', () => pickExample(e.index));
    return button;
  }));
  $('examples-box').hidden = examples.length === 0;  // shown once filled
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
  } else if (examples.length > 0) {
    pickExample(0);  // a pair to look at from the start
  }
}

init();
