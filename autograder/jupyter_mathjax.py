"""A Jupyter server extension that serves the course's MathJax 3, for Formgrader's pages.

Formgrader renders a submission with nbconvert in the Jupyter server, with no network; the
course's template (templates/formgrade/mathjax.html.j2) loads MathJax from here:
``{base_url}/attention-mathjax/settings.js`` (the course's settings for notebooks,
autograder/mathjax.py) then ``{base_url}/attention-mathjax/tex-chtml-full-speech.js``, whose
fonts, extensions and speech rules load from beside it.  The files are the wheel's, the same
the book and the feedback pages copy.  Enabled in the venv by ``make``, which copies
autograder/jupyter-config/autograder-mathjax.json into the venv's
etc/jupyter/jupyter_server_config.d/, as a wheel enables its own server extension.
"""
from jupyter_server.utils import url_path_join
from tornado import web

from autograder.mathjax import MATHJAX_DIR, SETTINGS_FILE, notebook_settings, settings_script

ROUTE = "attention-mathjax"


class _Settings(web.RequestHandler):
    """settings.js: public, like the static files of the Jupyter server."""

    def get(self):
        self.set_header("Content-Type", "text/javascript; charset=UTF-8")
        self.finish(settings_script(notebook_settings()))


def _jupyter_server_extension_points():
    return [{"module": "autograder.jupyter_mathjax"}]


def _load_jupyter_server_extension(serverapp):
    web_app = serverapp.web_app
    prefix = url_path_join(web_app.settings["base_url"], ROUTE)
    web_app.add_handlers(".*$", [
        (url_path_join(prefix, SETTINGS_FILE), _Settings),
        (url_path_join(prefix, "(.*)"), web.StaticFileHandler, {"path": str(MATHJAX_DIR)}),
    ])
    serverapp.log.info("MathJax 3 for Formgrader at %s/", prefix)
