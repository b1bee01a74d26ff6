"""The claims app's pages (claims/urls.py routes to them): `sources` the sources list, a new source, a source's page
with its highlighted text, claims and extraction; `claims` the claims list and THE search, a claim's because-chain,
deriving a claim, and the fragments a highlight and the claim picker ask for.
"""
