//! The address policy for requests that go through a proxy. ureq hands a proxied request's
//! host to the proxy unresolved, so without this link a page's `http://169.254.169.254/`
//! became `CONNECT 169.254.169.254:80`, and a proxy on a cloud machine connects.

use ureq::unversioned::transport::{ConnectionDetails, Connector};

/// The first link of the agent's connector chain. When a request goes through a proxy and the
/// run refuses some addresses, its target is resolved here by the agent's resolver, which
/// refuses an address as it would for a direct connection (the start sites excepted). A name
/// this machine cannot resolve still goes to the proxy, which may know it; a name or literal
/// in a refused class never does.
#[derive(Debug)]
pub(crate) struct ProxiedTargetCheck {
    /// The run refuses no address: nothing to look up.
    pub(crate) open: bool,
}

impl Connector<()> for ProxiedTargetCheck {
    type Out = ();

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<()>,
    ) -> Result<Option<()>, ureq::Error> {
        let proxied = details
            .config
            .proxy()
            .is_some_and(|p| !p.is_no_proxy(details.uri));
        if proxied && !self.open {
            let looked_up = details
                .resolver
                .resolve(details.uri, details.config, details.timeout);
            if let Err(e) = looked_up
                && crate::fetch::resolver::RefusedAddress::of(&e).is_some()
            {
                return Err(e);
            }
        }
        Ok(chained)
    }
}
