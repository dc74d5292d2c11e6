//! `primgraph lsp`: a Language Server Protocol server for `*.graph.json` (SPEC §8), on
//! `lsp-server`'s connection and `lsp-types`' messages. This module owns the lifecycle and the
//! main loop; each feature is a file beside it (`diagnostics`, `hover`, `completion`,
//! `definition`, `symbols`, `code_actions`), over the tolerant scanner `scan` and the UTF-16
//! table `position`; `transport` reads the client's frames within limits and writes the answers.
//!
//! An opened or changed document is validated after a debounce: one under
//! `worker::VALIDATE_ON_LOOP_BYTES` (16 KiB, a few milliseconds of checking) on the main loop,
//! which costs less than a thread handoff on a busy machine; any larger one on the worker thread
//! (`worker`), which publishes its diagnostics to the client itself when the version it checked
//! is still the document's (the loop keeps the table of current versions it checks against); a
//! result for a version the document has moved past is dropped. Requests (hover, completion, …)
//! are answered on the loop from the current text, so they stay fast while a large document is
//! validated.
//!
//! Lifecycle (LSP 3.17): a request before `initialize` gets `ServerNotInitialized` (-32002); a
//! request after `shutdown` gets `InvalidRequest` (-32600); `exit` ends the loop, successfully
//! only after `shutdown`. Malformed parameters get `InvalidParams`, unknown methods
//! `MethodNotFound`; nothing a client sends ends the server except `exit` or closing the stream
//! (a frame that is not a message is answered with a JSON-RPC error and skipped: see
//! `transport`).

pub mod code_actions;
pub mod completion;
pub mod definition;
pub mod diagnostics;
pub mod fragments;
pub mod hover;
pub mod position;
pub mod scan;
pub mod settings;
pub mod symbols;
pub mod transport;
pub mod worker;

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeActionProviderCapability, CompletionOptions, Hover, HoverContents, HoverProviderCapability,
    InitializeResult, Location, MarkupContent, MarkupKind, OneOf, PublishDiagnosticsParams,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use position::LineMap;
use scan::Outline;
use settings::Settings;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the server is started.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// `--config`: one configuration for every document (else found per document).
    pub config: Option<PathBuf>,
    /// How long after the last change a document is validated.
    pub debounce: Duration,
    /// The limits on each frame of the client's stream (`serve_io`).
    pub frame_limits: transport::FrameLimits,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            config: None,
            debounce: Duration::from_millis(150),
            frame_limits: transport::FrameLimits::default(),
        }
    }
}

/// How the session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// `exit` after `shutdown`.
    Clean,
    /// `exit` without `shutdown`, or the client closed the stream (exit code 1 per LSP).
    Abrupt,
}

struct Document {
    version: i32,
    text: String,
    /// Built on first use per version: the text shared with the worker and requests, its lines.
    snapshot: Option<Arc<str>>,
    lines: Option<Arc<LineMap>>,
    outline: Option<(i32, Arc<Outline>)>,
    /// When the document is due for validation (set by a change, cleared when sent).
    due: Option<Instant>,
}

impl Document {
    fn snapshot(&mut self) -> Arc<str> {
        self.snapshot
            .get_or_insert_with(|| Arc::from(self.text.as_str()))
            .clone()
    }

    fn lines(&mut self) -> Arc<LineMap> {
        self.lines
            .get_or_insert_with(|| Arc::new(LineMap::new(&self.text)))
            .clone()
    }

    fn outline(&mut self) -> Arc<Outline> {
        match &self.outline {
            Some((version, outline)) if *version == self.version => outline.clone(),
            _ => {
                let outline = Arc::new(Outline::of(&self.text));
                self.outline = Some((self.version, outline.clone()));
                outline
            }
        }
    }

    fn set_text(&mut self, version: i32, text: String) {
        self.version = version;
        self.text = text;
        self.snapshot = None;
        self.lines = None;
    }
}

#[derive(PartialEq, Eq)]
enum State {
    Uninitialized,
    Running,
    ShutDown,
}

struct Server<'c> {
    connection: &'c Connection,
    options: ServerOptions,
    settings: Arc<Settings>,
    documents: HashMap<Uri, Document>,
    jobs: Sender<worker::Job>,
    /// The versions the worker publishes against, and the client's stream it publishes on.
    shared: worker::Shared,
    state: State,
}

/// The capabilities announced in `initialize`.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["\"".into()]),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    }
}

/// Serve one session on `connection` until `exit` (or the client goes away).
pub fn serve(connection: &Connection, options: ServerOptions) -> Result<Exit, String> {
    let settings = Arc::new(Settings::new(options.config.clone()));
    let (job_tx, job_rx) = crossbeam_channel::unbounded();
    let (outline_tx, outline_rx) = crossbeam_channel::unbounded();
    let shared = worker::shared(connection.sender.clone());
    let worker = worker::spawn(settings.clone(), shared.clone(), job_rx, outline_tx)
        .map_err(|e| format!("cannot start the validation thread: {e}"))?;
    let mut server = Server {
        connection,
        options,
        settings,
        documents: HashMap::new(),
        jobs: job_tx,
        shared: shared.clone(),
        state: State::Uninitialized,
    };
    let exit = server.run(&outline_rx);
    // The worker sends nothing more, and lets go of the client's stream (so that it can close
    // while a validation nobody will read finishes).
    worker::lock(&shared).client = None;
    // Dropping the server closes the job channel, so the worker ends after its current job;
    // it is not waited for: `exit` must not wait for a validation nobody will read.
    drop(server);
    drop(worker);
    exit
}

impl Server<'_> {
    fn run(&mut self, outlines: &Receiver<worker::OutlineReady>) -> Result<Exit, String> {
        loop {
            let timeout = self
                .documents
                .values()
                .filter_map(|d| d.due)
                .min()
                .map_or(Duration::from_secs(3600), |due| {
                    due.saturating_duration_since(Instant::now())
                });
            select! {
                recv(self.connection.receiver) -> message => match message {
                    Ok(message) => {
                        if let Some(exit) = self.handle(message)? {
                            return Ok(exit);
                        }
                    }
                    Err(_) => return Ok(Exit::Abrupt),
                },
                recv(outlines) -> ready => {
                    if let Ok(ready) = ready
                        && let Some(doc) = self.documents.get_mut(&ready.uri)
                        && doc.version == ready.version
                    {
                        doc.outline = Some((ready.version, ready.outline));
                    }
                }
                default(timeout) => {}
            }
            self.send_due_jobs();
        }
    }

    fn send(&self, message: impl Into<Message>) -> Result<(), String> {
        self.connection
            .sender
            .send(message.into())
            .map_err(|_| "the client's stream is closed".to_string())
    }

    fn handle(&mut self, message: Message) -> Result<Option<Exit>, String> {
        match message {
            Message::Request(request) => {
                self.request(request)?;
                Ok(None)
            }
            Message::Notification(notification) => {
                if notification.method == note::Exit::METHOD {
                    return Ok(Some(if self.state == State::ShutDown {
                        Exit::Clean
                    } else {
                        Exit::Abrupt
                    }));
                }
                if self.state == State::Running {
                    self.notification(notification)?;
                }
                Ok(None)
            }
            Message::Response(_) => Ok(None), // the server sends no requests
        }
    }

    fn request(&mut self, request: Request) -> Result<(), String> {
        let id = request.id.clone();
        match self.state {
            State::Uninitialized if request.method != req::Initialize::METHOD => {
                return self.send(Response::new_err(
                    id,
                    ErrorCode::ServerNotInitialized as i32,
                    format!("`{}` before `initialize`", request.method),
                ));
            }
            State::ShutDown => {
                return self.send(Response::new_err(
                    id,
                    ErrorCode::InvalidRequest as i32,
                    format!("`{}` after `shutdown`", request.method),
                ));
            }
            State::Running if request.method == req::Initialize::METHOD => {
                return self.send(Response::new_err(
                    id,
                    ErrorCode::InvalidRequest as i32,
                    "`initialize` was already received".into(),
                ));
            }
            _ => {}
        }
        let result = match request.method.as_str() {
            req::Initialize::METHOD => {
                self.state = State::Running;
                let result = InitializeResult {
                    capabilities: capabilities(),
                    server_info: Some(ServerInfo {
                        name: "primgraph".into(),
                        version: Some(env!("CARGO_PKG_VERSION").into()),
                    }),
                };
                serde_json::to_value(result).map_err(|e| e.to_string())
            }
            req::Shutdown::METHOD => {
                self.state = State::ShutDown;
                Ok(serde_json::Value::Null)
            }
            req::HoverRequest::METHOD => {
                self.with_params::<req::HoverRequest>(&request, |s, p| s.hover(p))
            }
            req::Completion::METHOD => {
                self.with_params::<req::Completion>(&request, |s, p| s.completion(p))
            }
            req::GotoDefinition::METHOD => {
                self.with_params::<req::GotoDefinition>(&request, |s, p| s.definition(p))
            }
            req::DocumentSymbolRequest::METHOD => {
                self.with_params::<req::DocumentSymbolRequest>(&request, |s, p| s.symbols(p))
            }
            req::CodeActionRequest::METHOD => {
                self.with_params::<req::CodeActionRequest>(&request, |s, p| s.code_actions(p))
            }
            method => {
                return self.send(Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("`{method}` is not supported"),
                ));
            }
        };
        match result {
            Ok(value) => self.send(Response::new_ok(id, value)),
            Err(message) => self.send(Response::new_err(
                id,
                ErrorCode::InvalidParams as i32,
                message,
            )),
        }
    }

    /// Decode a request's parameters, run `f`, encode its answer (an `Err` is invalid params).
    fn with_params<R: req::Request>(
        &mut self,
        request: &Request,
        f: impl FnOnce(&mut Self, R::Params) -> R::Result,
    ) -> Result<serde_json::Value, String>
    where
        R::Result: serde::Serialize,
    {
        let params: R::Params = serde_json::from_value(request.params.clone())
            .map_err(|e| format!("invalid parameters of `{}`: {e}", request.method))?;
        let answer = f(self, params);
        serde_json::to_value(answer).map_err(|e| e.to_string())
    }

    fn notification(&mut self, notification: Notification) -> Result<(), String> {
        match notification.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(
                    notification.params,
                ) else {
                    return Ok(());
                };
                let doc = params.text_document;
                worker::lock(&self.shared)
                    .versions
                    .insert(doc.uri.clone(), doc.version);
                self.documents.insert(
                    doc.uri,
                    Document {
                        version: doc.version,
                        text: doc.text,
                        snapshot: None,
                        lines: None,
                        outline: None,
                        // Opening is not typing: validate at once.
                        due: Some(Instant::now()),
                    },
                );
            }
            note::DidChangeTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(
                    notification.params,
                ) else {
                    return Ok(());
                };
                let debounce = self.options.debounce;
                let Some(doc) = self.documents.get_mut(&params.text_document.uri) else {
                    return Ok(());
                };
                let mut text = std::mem::take(&mut doc.text);
                for change in params.content_changes {
                    match change.range {
                        None => text = change.text,
                        Some(range) => {
                            let lines = LineMap::new(&text);
                            let start = lines.offset(&text, range.start);
                            let end = lines.offset(&text, range.end).max(start);
                            text.replace_range(start..end, &change.text);
                        }
                    }
                }
                doc.set_text(params.text_document.version, text);
                doc.due = Some(Instant::now() + debounce);
                worker::lock(&self.shared)
                    .versions
                    .insert(params.text_document.uri, params.text_document.version);
            }
            note::DidCloseTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(
                    notification.params,
                ) else {
                    return Ok(());
                };
                let uri = params.text_document.uri;
                if self.documents.remove(&uri).is_some() {
                    // A closed file's diagnostics are no longer the editor's to show; under the
                    // lock, so that no result of the worker's for it can follow.
                    let mut table = worker::lock(&self.shared);
                    table.versions.remove(&uri);
                    self.send(Notification::new(
                        note::PublishDiagnostics::METHOD.into(),
                        PublishDiagnosticsParams::new(uri, Vec::new(), None),
                    ))?;
                }
            }
            _ => {} // `initialized`, `$/cancelRequest`, settings changes: nothing to do
        }
        Ok(())
    }

    /// Validate every document whose debounce has passed: a small one here (at most a few
    /// milliseconds, less than handing it to the worker and waiting for the worker to be
    /// scheduled), any other on the worker.
    fn send_due_jobs(&mut self) {
        let now = Instant::now();
        for (uri, doc) in &mut self.documents {
            if doc.due.is_some_and(|due| due <= now) {
                doc.due = None;
                if doc.text.len() < worker::VALIDATE_ON_LOOP_BYTES {
                    let analysis = worker::analyze(&self.settings, uri, doc.version, &doc.text);
                    worker::publish(&self.shared, analysis);
                    continue;
                }
                let _ = self.jobs.send(worker::Job {
                    uri: uri.clone(),
                    version: doc.version,
                    text: doc.snapshot(),
                });
            }
        }
    }

    /// The outline of the open document at `uri` at its current version.
    fn outline(&mut self, uri: &Uri) -> Arc<Outline> {
        self.documents
            .get_mut(uri)
            .map_or_else(Arc::default, Document::outline)
    }

    /// The open document at `uri`: its text, line table and registry.
    fn view(&mut self, uri: &Uri) -> Option<View> {
        let settings = self.settings.for_uri(uri);
        let doc = self.documents.get_mut(uri)?;
        // Fragments: those of every pack on the pack path, and in a fragment file, those of its
        // own pack and the packs that one requires.
        let mut compositions = Vec::new();
        if let settings::RegistryHandle::Composed(c) = &settings.editor {
            compositions.push(c.clone());
        }
        if let Some(path) = settings::uri_to_path(uri)
            .filter(|p| p.to_string_lossy().ends_with(crate::pack::fragment::SUFFIX))
            && let Some(own) = self.settings.own_pack(&path, &settings, false)
        {
            compositions.push(own);
        }
        Some(View {
            lines: doc.lines(),
            text: doc.snapshot(),
            // Hover, completion and definition know every pack on the pack path too.
            registry: settings.editor,
            fragments: fragments::Fragments::of(&compositions),
        })
    }

    fn hover(&mut self, params: lsp_types::HoverParams) -> Option<Hover> {
        let at = params.text_document_position_params;
        let view = self.view(&at.text_document.uri)?;
        let offset = view.lines.offset(&view.text, at.position);
        let uri = at.text_document.uri;
        let (markdown, range) = hover::hover(
            &view.text,
            &mut || self.outline(&uri),
            &view.registry,
            &view.fragments,
            offset,
        )?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: markdown,
            }),
            range: Some(view.lines.range(&view.text, range.start, range.end)),
        })
    }

    fn completion(
        &mut self,
        params: lsp_types::CompletionParams,
    ) -> Option<lsp_types::CompletionResponse> {
        let at = params.text_document_position;
        let uri = at.text_document.uri;
        let view = self.view(&uri)?;
        let offset = view.lines.offset(&view.text, at.position);
        let items = completion::complete(
            &view.text,
            &view.lines,
            &mut || self.outline(&uri),
            &view.registry,
            &view.fragments,
            offset,
        );
        Some(lsp_types::CompletionResponse::Array(items))
    }

    fn definition(
        &mut self,
        params: lsp_types::GotoDefinitionParams,
    ) -> Option<lsp_types::GotoDefinitionResponse> {
        let at = params.text_document_position_params;
        let uri = at.text_document.uri;
        let view = self.view(&uri)?;
        let offset = view.lines.offset(&view.text, at.position);
        if let Some(location) = definition::pack_primitive(&view.text, &view.registry, offset) {
            return Some(lsp_types::GotoDefinitionResponse::Scalar(location));
        }
        if let Some(location) = definition::fragment(
            &view.text,
            &mut || self.outline(&uri),
            &view.fragments,
            offset,
        ) {
            return Some(lsp_types::GotoDefinitionResponse::Scalar(location));
        }
        let range = definition::definition(&view.text, &self.outline(&uri), offset)?;
        Some(lsp_types::GotoDefinitionResponse::Scalar(Location::new(
            uri,
            view.lines.range(&view.text, range.start, range.end),
        )))
    }

    fn symbols(
        &mut self,
        params: lsp_types::DocumentSymbolParams,
    ) -> Option<lsp_types::DocumentSymbolResponse> {
        let uri = params.text_document.uri;
        let view = self.view(&uri)?;
        Some(lsp_types::DocumentSymbolResponse::Nested(symbols::symbols(
            &view.text,
            &view.lines,
            &self.outline(&uri),
        )))
    }

    fn code_actions(
        &mut self,
        params: lsp_types::CodeActionParams,
    ) -> Option<lsp_types::CodeActionResponse> {
        let uri = params.text_document.uri;
        let view = self.view(&uri)?;
        let start = view.lines.offset(&view.text, params.range.start);
        let end = view.lines.offset(&view.text, params.range.end).max(start);
        let actions = code_actions::code_actions(
            &uri,
            &view.text,
            &view.lines,
            &self.outline(&uri),
            &view.registry,
            start..end,
            &params.context.diagnostics,
        );
        Some(
            actions
                .into_iter()
                .map(lsp_types::CodeActionOrCommand::CodeAction)
                .collect(),
        )
    }
}

/// What a request reads of one open document.
struct View {
    text: Arc<str>,
    lines: Arc<LineMap>,
    registry: settings::RegistryHandle,
    fragments: fragments::Fragments,
}

pub use transport::serve_io;
