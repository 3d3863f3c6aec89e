"""The grading engine behind the learner's self-check and the instructor's class run.

Modules, in the order a submission meets them:

* ``notebooks``      read a notebook, tell test cells from the learner's code,
                     find the trusted source notebook in ``solutions/``.
* ``sandbox``        start the learner's code in a separate, limited process.
* ``worker``         what runs in that process, and the plain-data wire format.
* ``engine``         run the source's test cells here, against proxies of the
                     learner's functions; one ``Report`` per notebook.
* ``checks``         what hidden tests use to compare answers and name mistakes.
* ``catalogue/``     one misconception catalogue (hidden checks + mistakes) per exercise.
* ``preprocessors``  plugs the engine into ``nbgrader autograde``.
* ``__main__``       ``python -m autograder check NOTEBOOK [--json] [--lang ja]``.
* ``i18n``           the language of every message a learner reads (English, Japanese).
"""
